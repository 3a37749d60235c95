// A CSI driver's modification window (issue 36 item 5), end to end over the real Octokit and client-node against both
// sandboxes, the Kubernetes one playing AWS EBS (`ebs.csi.aws.com`: one modification per volume every six hours,
// refused in AWS's own words). A volume this tool modified within the window: the pull request's check warns, and
// once merged the pass waits for the window (no patch, no failure, no recovery pull request), then applies. A volume
// grown outside Git within the window: the driver's refusal is read as waiting, never as a failure, and the resize
// lands once the window has passed.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-command.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../sandbox/kube/store.ts';
import { commentBodies, noWaiting, statusesOf, writeFiles } from '../support/passes.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const hour = 3_600_000;
const context = 'sts-volume-gitops/validate (demo)';
const manifest = (storage: string): string => statefulSetManifest({ name: 'pg', storage, replicas: 2, storageClass: 'gp3' });

function storageOf(pvc: KubeObject | undefined): { request: unknown; capacity: unknown } {
  const spec = pvc?.spec as { resources?: { requests?: { storage?: unknown } } } | undefined;
  const status = pvc?.status as { capacity?: { storage?: unknown } } | undefined;
  return { request: spec?.resources?.requests?.storage, capacity: status?.capacity?.storage };
}

describe("a CSI driver's modification window (AWS EBS, six hours)", () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  let now = Date.parse('2026-11-28T08:00:00Z');
  const env: Record<string, string> = { ...sandboxRecordKeyEnv() };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-modification-window-'));
    await writeFiles(join(dir, 'repo'), { 'k8s/pg.yaml': manifest('10Gi') });
    kube = await startKubeSandbox({
      now: () => new Date(now),
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'gp3', default: true, allowVolumeExpansion: true, driver: { name: 'ebs.csi.aws.com' } }],
        statefulSets: [load(manifest('10Gi'))],
      },
    });
    kube.tick(4);
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    env.WINDOW_TOKEN = github.token;
    config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'WINDOW_TOKEN'), 'window.yaml', dir);
  });
  after(async () => {
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** An apply pass on the sandbox's clock (the driver's window is measured on it). */
  const pass = async (): Promise<TargetRun> => {
    const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting, now: () => now });
    assert.equal(run?.error, undefined, run?.error);
    return run ?? assert.fail('no run');
  };
  const pg = (run: TargetRun) => run.report?.statefulSets.find((s) => s.name === 'pg') ?? assert.fail('pg not reported');
  const converge = async (): Promise<TargetRun> => {
    for (let i = 0; i < 20; i++) {
      const run = await pass();
      if (pg(run).outcome === 'converged') return run;
      kube.tick(2);
    }
    return assert.fail('did not converge');
  };
  const recoveryPullRequests = (): number => github.state.pulls.filter((p) => p.head.startsWith('sts-volume-gitops/')).length;

  it('a change merged within six hours of the last one waits for the window, then applies; its check warned before merge', async () => {
    await github.commitFiles({ branch: 'main', message: 'pg to 20Gi', files: { 'k8s/pg.yaml': manifest('20Gi') } });
    await converge();
    const modifiedAt = now;
    now += hour;
    const head = await github.commitFiles({ branch: 'grow-pg', message: 'pg to 30Gi', files: { 'k8s/pg.yaml': manifest('30Gi') } });
    const pr = await github.openPullRequest({ head: 'grow-pg', title: 'pg to 30Gi' });
    await pass();
    const until = new Date(modifiedAt + 6 * hour).toISOString().replace(/\.\d{3}Z$/, 'Z');
    assert.deepEqual(statusesOf(github, head, context).at(-1), { state: 'success', description: `db/pg: 2 PVCs grow 20Gi → 30Gi (waits for the driver's window until ${until})` });
    const comment = (commentBodies(github, pr).at(-1) ?? '').replace(/\\([()])/g, '$1');
    assert.match(comment, new RegExp(`- ⚠️ \\*\\*Warning:\\*\\* db/pg \`data\`: data-pg-0, data-pg-1 were modified less than 6h ago, and ebs\\.csi\\.aws\\.com accepts one modification per volume every 6h: once merged, the change to them waits for the driver's window \\(until ${until} at the latest\\), then applies; nothing fails`));

    await github.mergePullRequest(pr);
    const waiting = await pass();
    assert.equal(pg(waiting).outcome, 'waiting');
    assert.deepEqual(pg(waiting).templates[0]?.pvcs.map((p) => [p.name, p.state, p.message]), [0, 1].map((i) => [
      `data-pg-${i}`, 'waiting-for-window', `waiting for the driver's window until ${until} (ebs.csi.aws.com accepts one modification per volume every 6h; last modified ${until.replace('T14', 'T08')})`,
    ]));
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-0')), { request: '20Gi', capacity: '20Gi' }, 'not patched within the window');
    assert.equal(recoveryPullRequests(), 0, 'waiting is no failure: no recovery pull request');

    now = modifiedAt + 6 * hour + 60_000;
    await converge();
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-1')), { request: '30Gi', capacity: '30Gi' });
    assert.equal(recoveryPullRequests(), 0);
  });

  it("a volume grown outside Git within the window: the driver's refusal, in AWS's words, is waiting, and the resize lands after it", async () => {
    now += 7 * hour;
    const pvc = kube.store.peek(pvcType, 'db', 'data-pg-0');
    assert.ok(pvc);
    kube.store.replace(pvcType, { ...pvc, spec: { ...pvc.spec, resources: { requests: { storage: '35Gi' } } } });
    kube.tick(6);
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-0')), { request: '35Gi', capacity: '35Gi' }, 'grown by hand, finished: no condition left');
    const grownAt = now;
    now += hour;
    await github.commitFiles({ branch: 'main', message: 'pg to 40Gi', files: { 'k8s/pg.yaml': manifest('40Gi') } });
    let run = await pass();
    for (let i = 0; i < 4; i++) {
      kube.tick(2);
      run = await pass();
    }
    const claim = pg(run).templates[0]?.pvcs.find((p) => p.name === 'data-pg-0');
    assert.equal(claim?.state, 'waiting-for-window', claim?.message);
    assert.match(claim?.message ?? '', /^waiting for the driver's window: failed to expand pvc with rpc error: code = Internal desc = Could not resize volume "[^"]+": rpc error: code = Internal desc = Could not modify volume "[^"]+": operation error EC2: ModifyVolume, https response error StatusCode: 400, RequestID: [0-9a-f-]{36}, api error VolumeModificationRateExceeded: You've reached the maximum modification rate per volume limit\. Wait at least 6 hours between modifications per EBS volume\.$/);
    assert.notEqual(pg(run).outcome, 'failed');
    assert.equal(recoveryPullRequests(), 0, 'a refusal within the window is no failure: no recovery pull request');

    now = grownAt + 6 * hour + 60_000;
    kube.tick(4);
    await converge();
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-0')), { request: '40Gi', capacity: '40Gi' });
    assert.equal(recoveryPullRequests(), 0);
  });
});
