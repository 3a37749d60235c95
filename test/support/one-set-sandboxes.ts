// Both sandboxes around one StatefulSet, db/pg (2 replicas, class `standard`, its manifest at k8s/pg.yaml), and a
// target that applies it through the real clients, passed until converged: where a write-back story starts.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { applyPass, passUntil, writeFiles } from './passes.ts';
import { statefulSetManifest } from './statefulset-manifest.ts';

export interface OneSetSandboxes {
  kube: KubeSandbox;
  github: GitHubSandbox;
  config: Config;
  env: Record<string, string>;
  pass: () => Promise<TargetRun>;
  close: () => Promise<void>;
}

/** db/pg's manifest at `storage`. */
export const pgManifest = (storage: string): string => statefulSetManifest({ name: 'pg', storage, replicas: 2 });

export async function startOneSetSandboxes(storage: string): Promise<OneSetSandboxes> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-one-set-'));
  await writeFiles(join(dir, 'repo'), { 'k8s/pg.yaml': pgManifest(storage) });
  const kube = await startKubeSandbox({
    workDir: join(dir, 'kube'),
    seed: {
      namespaces: ['db'],
      storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }],
      statefulSets: [load(pgManifest(storage))],
    },
  });
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const env: Record<string, string> = { ...sandboxRecordKeyEnv(), ONE_SET_TOKEN: github.token };
  const config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'ONE_SET_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]'), 'one-set.yaml', dir);
  const pass = (): Promise<TargetRun> => applyPass(config, env);
  kube.tick(4);
  await passUntil(pass, kube, (run) => run.report?.statefulSets[0]?.outcome === 'converged');
  return { kube, github, config, env, pass, close: async () => { await kube.close(); await github.close(); } };
}
