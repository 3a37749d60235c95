// What the end-to-end tests on the recorded CSI stack share (test/conformance/csi/stack.ts: csi-driver-host-path
// v1.17.1 with a 50Gi maximum behind external-resizer v2.0.0): the Kubernetes sandbox seeded with it and namespace db,
// the GitHub sandbox seeded with `files`, and the tool as on a real cluster: a user of the group its generated RBAC
// binds, with those grants only; a growth of 100x (1Gi -> 100Gi, as tried on the real stack) is let through by the
// target's guardrail. Passes through runTargets, the controllers advanced by ticks between them.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { defaultRbacGroup, rbacObjects } from '../../functions/app/rbac-manifest.ts';
import { generateRecordKey, sandboxConfig } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { recordedStack } from '../conformance/csi/stack.ts';
import { applyPass, writeFiles } from './passes.ts';

export interface RecordedStackE2e {
  kube: KubeSandbox;
  github: GitHubSandbox;
  config: Config;
  /** One apply pass of the target. */
  pass(): Promise<TargetRun>;
  /** Passes, two controller ticks between them, until `until` holds. */
  passUntil(what: string, until: (run: TargetRun) => boolean, most?: number): Promise<TargetRun>;
  /** A pull request changing `files`, opened and merged as a person would: its number and commit (progress goes there). */
  merged(branch: string, title: string, files: Record<string, string>): Promise<{ number: number; sha: string }>;
  close(): Promise<void>;
}

export async function startRecordedStackE2e(
  prefix: string, files: Record<string, string>, storageClasses: typeof recordedStack.storageClasses = recordedStack.storageClasses,
): Promise<RecordedStackE2e> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await writeFiles(join(dir, 'repo'), files);
  const kube = await startKubeSandbox({
    workDir: join(dir, 'kube'), version: recordedStack.version,
    seed: { namespaces: ['db'], storageClasses, volumeAttributesClasses: recordedStack.volumeAttributesClasses, statefulSets: Object.values(files).map((text) => load(text)) },
  });
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const identity = await kube.addIdentity({ name: 'sts-volume-gitops-e2e', groups: [defaultRbacGroup] });
  const text = sandboxConfig(identity.kubeconfigPath, github.url, 'E2E_TOKEN', [], { recordKey: { env: 'E2E_RECORD_KEY' }, stateNamespace: undefined })
    .replace('allow: [db, cache, analytics]', 'allow: [db]')
    .replace('    pullRequests:', '    guardrails: { maxGrowthFactor: 100 }\n    pullRequests:');
  const config = parseConfig(text, join(dir, 'config.yaml'), dir);
  await applyObjects(kube, rbacObjects(config.targets));
  const env: Record<string, string> = { E2E_RECORD_KEY: generateRecordKey(), E2E_TOKEN: github.token };
  kube.tick(4);
  const pass = (): Promise<TargetRun> => applyPass(config, env);
  return {
    kube, github, config, pass,
    async passUntil(what, until, most = 15) {
      let run: TargetRun | undefined;
      for (let i = 0; i < most; i++) {
        run = await pass();
        if (until(run)) return run;
        kube.tick(2);
      }
      assert.fail(`${what}: not reached in ${most} passes; last: ${JSON.stringify(run?.report?.statefulSets.map((s) => [s.name, s.outcome, s.templates.map((t) => t.pvcs.map((p) => [p.state, p.message]))]))}`);
    },
    async merged(branch, title, changed) {
      const sha = await github.commitFiles({ branch, message: title, files: changed });
      const number = await github.openPullRequest({ head: branch, title });
      await github.mergePullRequest(number);
      return { number, sha };
    },
    async close() {
      await kube.close();
      await github.close();
    },
  };
}
