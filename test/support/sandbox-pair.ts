// What the end-to-end tests of proposals and size sources start from: a seed repository written to disk, the
// Kubernetes sandbox seeded with `seed` (its state beside it) and the GitHub sandbox serving the repository, and the
// sandbox's ready config for them (functions/cli/sandbox-config.ts), its token in the environment passes read.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxConfig } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { writeFiles } from './passes.ts';

export interface SandboxPair {
  dir: string;
  kube: KubeSandbox;
  github: GitHubSandbox;
  /** The config's text, as parsed into `config`. */
  configText: string;
  config: Config;
  close(): Promise<void>;
}

/** The namespaces the ready config allows, replaced by a test's own. */
const readyAllow = 'allow: [db, cache, analytics]';

export async function startSandboxPair(args: {
  /** Names the temporary folder and the config file. */
  name: string;
  /** The repository: path -> text. */
  files: Record<string, string>;
  /** The Kubernetes sandbox's seed (namespaces, StorageClasses, StatefulSets, ...). */
  seed: Record<string, unknown>;
  /** The variable the config reads the GitHub token from; set in `env`. */
  tokenEnv: string;
  env: Record<string, string>;
  /** The namespaces the target may change. */
  allow: readonly string[];
  /** Lines added to the target's config (its sizeSources). */
  targetLines?: string;
}): Promise<SandboxPair> {
  const dir = await mkdtemp(join(tmpdir(), `sts-${args.name}-`));
  await writeFiles(join(dir, 'repo'), args.files);
  const kube = await startKubeSandbox({ workDir: join(dir, 'kube'), seed: args.seed });
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const ready = sandboxConfig(kube.kubeconfigPath, github.url, args.tokenEnv);
  if (!ready.includes(readyAllow)) throw new Error(`the sandbox's ready config no longer says "${readyAllow}"`);
  const configText = ready.replace(readyAllow, `allow: [${args.allow.join(', ')}]`) + (args.targetLines ?? '');
  args.env[args.tokenEnv] = github.token;
  return {
    dir, kube, github, configText, config: parseConfig(configText, `${args.name}.yaml`, dir),
    close: async () => {
      await kube.close();
      await github.close();
    },
  };
}
