// A CSI driver's modification window (issue 36 item 5), end to end over the real Octokit and client-node against both
// sandboxes, the Kubernetes one playing AWS EBS (`ebs.csi.aws.com`: four modifications per volume within any 24 hours,
// refused past them in AWS's own words). Four changes within 24 hours apply; a fifth: the pull request's check warns,
// and once merged the pass waits until the oldest of the four leaves the 24 hours (no patch, no failure, no recovery
// pull request), then applies. Modifications made outside Git: the driver's refusal is read as waiting, never as a
// failure, and the resize lands once the backend takes it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
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

describe("a CSI driver's modification window (AWS EBS, four per 24 hours)", () => {
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

  const manifestAt = (size: number): Record<string, string> => ({ 'k8s/pg.yaml': manifest(`${size}Gi`) });
  const annotationTimes = (): unknown => {
    const sts = kube.store.peek(mustResourceType('apps/v1', 'StatefulSet'), 'db', 'pg');
    const statuses = JSON.parse(sts?.metadata.annotations?.['sts-volume-gitops.io/volume-claim-templates'] ?? '[]') as Array<{ volumesModifiedAt?: Record<string, unknown> }>;
    return statuses[0]?.volumesModifiedAt?.['data-pg-0'];
  };
  const iso = (ms: number): string => new Date(ms).toISOString();
  const short = (ms: number): string => iso(ms).replace(/\.\d{3}Z$/, 'Z');
  let first = 0;

  it('four changes within 24 hours apply; a fifth waits until the oldest of the four leaves the 24 hours, then applies; its check warned before merge', async () => {
    const modified: number[] = [];
    for (const size of [20, 30, 40, 50]) {
      await github.commitFiles({ branch: 'main', message: `pg to ${size}Gi`, files: manifestAt(size) });
      const run = await converge();
      assert.equal(pg(run).templates[0]?.pvcs.some((p) => p.state === 'waiting-for-window'), false, `the change to ${size}Gi waited`);
      modified.push(now);
      now += hour;
    }
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-1')), { request: '50Gi', capacity: '50Gi' }, 'four modifications within 4 hours, all taken');
    assert.deepEqual(annotationTimes(), modified.map(iso), 'the four times remembered');
    first = modified[0] ?? 0;
    const until = short(first + 24 * hour);
    const head = await github.commitFiles({ branch: 'grow-pg', message: 'pg to 60Gi', files: manifestAt(60) });
    const pr = await github.openPullRequest({ head: 'grow-pg', title: 'pg to 60Gi' });
    await pass();
    assert.deepEqual(statusesOf(github, head, context).at(-1), { state: 'success', description: `db/pg: 2 PVCs grow 50Gi → 60Gi (waits for the driver's window until ${until} at the latest)` });
    const comment = (commentBodies(github, pr).at(-1) ?? '').replace(/\\([()])/g, '$1');
    assert.ok(comment.includes(`- ⚠️ **Warning:** db/pg \`data\`: data-pg-0, data-pg-1 were modified 4 times within the last 24h, and ebs.csi.aws.com accepts 4 modifications `
      + `per volume within any 24h, and none while one is under way: once merged, the change to them waits for the driver's window (until ${until} at the latest), then applies; nothing fails`), comment);

    await github.mergePullRequest(pr);
    const waiting = await pass();
    assert.equal(pg(waiting).outcome, 'waiting');
    assert.deepEqual(pg(waiting).templates[0]?.pvcs.map((p) => [p.name, p.state, p.message]), [0, 1].map((i) => [
      `data-pg-${i}`, 'waiting-for-window', `waiting for the driver's window until ${until} (ebs.csi.aws.com accepts 4 modifications per volume within any 24h, `
        + `and none while one is under way; modified at ${modified.slice(0, 3).map(short).join(', ')} and ${short(modified[3] ?? 0)})`,
    ]));
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-0')), { request: '50Gi', capacity: '50Gi' }, 'not patched within the window');
    assert.equal(recoveryPullRequests(), 0, 'waiting is no failure: no recovery pull request');

    now = first + 24 * hour - 60_000;
    assert.equal(pg(await pass()).templates[0]?.pvcs[0]?.state, 'waiting-for-window', 'a minute before, still waiting');
    now = first + 24 * hour + 60_000;
    await converge();
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-1')), { request: '60Gi', capacity: '60Gi' });
    assert.deepEqual(annotationTimes(), [...modified.slice(1), now].map(iso), 'the oldest, out of the window, is forgotten: at most four kept');
    assert.equal(recoveryPullRequests(), 0);
  });

  it("modifications made outside Git: the driver's refusal of a fifth, in AWS's words, is waiting, and the resize lands when the backend takes it", async () => {
    const toolModified = now;
    now += 7 * hour;
    // Three expansions of data-pg-0 by hand, an hour apart: with the tool's, four within 24 hours at the backend.
    const grownAt: number[] = [];
    for (const size of [65, 70, 75]) {
      const pvc = kube.store.peek(pvcType, 'db', 'data-pg-0');
      assert.ok(pvc);
      kube.store.replace(pvcType, { ...pvc, spec: { ...pvc.spec, resources: { requests: { storage: `${size}Gi` } } } });
      kube.tick(6);
      assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-0')), { request: `${size}Gi`, capacity: `${size}Gi` }, 'grown by hand, finished: no condition left');
      grownAt.push(now);
      now += hour;
    }
    await github.commitFiles({ branch: 'main', message: 'pg to 80Gi', files: manifestAt(80) });
    let run = await pass();
    for (let i = 0; i < 4; i++) {
      kube.tick(2);
      run = await pass();
    }
    const claim = pg(run).templates[0]?.pvcs.find((p) => p.name === 'data-pg-0');
    assert.equal(claim?.state, 'waiting-for-window', claim?.message);
    const next = short(toolModified + 24 * hour).replace(/\./g, '\\.');
    assert.match(claim?.message ?? '', new RegExp(`^waiting for the driver's window: failed to expand pvc with rpc error: code = Internal desc = Could not resize volume "[^"]+": rpc error: code = Internal desc = Could not modify volume "[^"]+": operation error EC2: ModifyVolume, https response error StatusCode: 400, RequestID: [0-9a-f-]{36}, api error VolumeModificationRateExceeded: You've reached the maximum modification rate per volume limit\\. You can modify this volume again after ${next}\\.$`));
    assert.notEqual(pg(run).outcome, 'failed');
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-1')), { request: '80Gi', capacity: '80Gi' }, 'the other volume, modified once within 24h, was taken');
    assert.equal(recoveryPullRequests(), 0, 'a refusal within the window is no failure: no recovery pull request');

    now = toolModified + 24 * hour + 60_000;
    kube.tick(4);
    await converge();
    assert.deepEqual(storageOf(kube.store.peek(pvcType, 'db', 'data-pg-0')), { request: '80Gi', capacity: '80Gi' });
    assert.equal(recoveryPullRequests(), 0);
  });
});
