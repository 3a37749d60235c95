// Both sandboxes seeded from examples/ as `check` meets them, for the check and plan tests: a config file per case
// (the sandbox config, edited), an identity granted exactly what `sts-volume-gitops rbac` generates for a config, and
// `check --json` run in process with its report and the text it prints.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { rbacObjects, type RbacObject } from '../../functions/app/rbac-manifest.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { checkCommand } from '../../functions/cli/check-command.ts';
import { renderCheckReport, type CheckReport } from '../../functions/cli/render-check.ts';
import { exampleSizeSources, sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import type { CheckResult } from '../../functions/check/check-result.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

const examples = new URL('../../examples/', import.meta.url).pathname;
const noSecretsManager = (): Promise<string> => Promise.reject(new Error('no Secrets Manager in this test'));
const run = promisify(execFile);

export interface Checked {
  code: number;
  report: CheckReport;
  text: string;
  results: CheckResult[];
  errors: CheckResult[];
}

export interface CheckSandboxes {
  dir: string;
  kube: KubeSandbox;
  github: GitHubSandbox;
  env: Record<string, string>;
  /** A config file for the example target, its YAML text edited by `edit`, using `kubeconfig` (the admin's by default). */
  configFile(name: string, options?: { kubeconfig?: string; edit?: (text: string) => string }): Promise<string>;
  /** A kubeconfig of a new identity granted what `rbac` generates for `configPath` (objects the cluster refuses are skipped, as `kubectl apply` goes on past them). */
  toolIdentity(name: string, configPath: string): Promise<string>;
  check(configPath: string, extraEnv?: Record<string, string>): Promise<Checked>;
  /** The CLI in a child process, as a person runs it. */
  cli(args: string[], extraEnv?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export async function startCheckSandboxes(): Promise<CheckSandboxes> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-check-'));
  const kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
  const github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
  const env: Record<string, string> = { ...sandboxRecordKeyEnv(), CHECK_GITHUB_TOKEN: github.token };
  return {
    dir, kube, github, env,
    async configFile(name, options = {}) {
      const text = sandboxConfig(options.kubeconfig ?? kube.kubeconfigPath, github.url, 'CHECK_GITHUB_TOKEN', exampleSizeSources);
      const path = join(dir, `${name}.yaml`);
      const edited = options.edit ? options.edit(text) : text;
      // An edit that finds nothing to change would test the unedited configuration under another name.
      if (options.edit && edited === text) throw new Error(`the edit of ${name} changed nothing in the configuration:\n${text}`);
      await writeFile(path, edited);
      return path;
    },
    async toolIdentity(name, configPath) {
      const targets = parseConfig(await readFile(configPath, 'utf8'), configPath, dir).targets;
      // Objects of their own (names suffixed), bound to a group of their own: identities of other cases keep theirs.
      const objects = rbacObjects(targets, [{ kind: 'Group', name }]).map((object): RbacObject => {
        if (object.kind === 'Namespace') return object;
        const renamed: RbacObject = { ...object, metadata: { ...object.metadata, name: `${object.metadata.name}-${name}` } };
        if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') renamed.roleRef = { ...(object.roleRef as object), name: `${(object.roleRef as { name: string }).name}-${name}` };
        return renamed;
      });
      for (const object of objects) await applyObjects(kube, [object]).catch(() => undefined);
      return (await kube.addIdentity({ name, groups: [name] })).kubeconfigPath;
    },
    async check(configPath, extraEnv = {}) {
      let json = '';
      const code = await checkCommand(['--config', configPath, '--json'], { env: { ...env, ...extraEnv }, readSecret: noSecretsManager, readSecretText: noSecretsManager }, (t) => { json += t; });
      const report = JSON.parse(json) as CheckReport;
      const results = report.targets.flatMap((t) => t.results);
      return { code, report, text: renderCheckReport(report), results, errors: [...results, ...report.webhook].filter((r) => r.level === 'error') };
    },
    async cli(args, extraEnv = {}) {
      return run(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', ...args], { env: { ...process.env, ...env, ...extraEnv } })
        .then((output) => ({ code: 0, ...output }), (failure: unknown) => failure as { code: number; stdout: string; stderr: string });
    },
    async close() {
      await kube.close();
      await github.close();
    },
  };
}
