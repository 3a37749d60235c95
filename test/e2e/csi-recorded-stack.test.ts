// Issue 29's story end to end, on the Kubernetes sandbox seeded as the recorded CSI stack (csi-driver-host-path
// v1.17.1 behind external-resizer v2.0.0: a 50Gi maximum, `iops`/`throughput` mutable, classes fast/slow/broken, a
// driver with node expansion and a `nonode` one; test/conformance/csi/stack.ts), plus a kubelet, through the whole
// tool: runTargets with the real clients, the GitHub sandbox, and the cluster reached as the group `sts-volume-gitops`
// with only the RBAC `sts-volume-gitops rbac` generates. A StatefulSet of 2 grown beyond the driver's maximum is found
// infeasible, a recovery pull request quoting the driver proposes 50Gi, merged the volumes wait for their node until
// a person restarts the pods, and the set converges with every PVC (and, but for that restart, pod) kept; then a class
// change that converges, one the driver refuses and its recovery. Ticks only, no sleeps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { passVerdict } from '../../functions/engine/report/pass-verdict.ts';
import type { StatefulSetReport } from '../../functions/engine/report/pass-report.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { recordedStack } from '../conformance/csi/stack.ts';
import { commentBodies } from '../support/passes.ts';
import { startRecordedStackE2e, type RecordedStackE2e } from '../support/recorded-stack-e2e.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const podType = mustResourceType('v1', 'Pod');

const driverRefusal = 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200';
const classRefusal = 'invalid parameters: [notAMutableParameter]';

/** The recorded stack, with a kubelet: the node-expansion driver expands offline, so a running pod must be restarted (by a person). */
const storageClasses = recordedStack.storageClasses.map((c) => (c.name === 'csi-hostpath' ? { ...c, driver: { ...c.driver, nodeExpansion: 'offline' } } : c));

function web(storage: string, className?: string): string {
  return statefulSetManifest({
    heading: 'web: the shop\'s storage', name: 'web', namespace: 'db', storage, storageClass: 'csi-hostpath', replicas: 2,
    storageComment: 'sized by the platform team', ...(className !== undefined ? { volumeAttributesClass: className } : {}),
  });
}

function cache(storage: string): string {
  return statefulSetManifest({ name: 'cache', namespace: 'db', storage, storageClass: 'csi-hostpath-nonode', replicas: 1 });
}

describe('the recorded CSI stack, through the whole tool (issue 29)', () => {
  let stack: RecordedStackE2e;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let core: CoreV1Api;
  const uids = { pvcs: new Map<string, string>(), pods: new Map<string, string>() };

  const pass = (): Promise<TargetRun> => stack.pass();
  const passUntil = (what: string, until: (run: TargetRun) => boolean, most?: number): Promise<TargetRun> => stack.passUntil(what, until, most);
  const merged = (branch: string, title: string, files: Record<string, string>): Promise<{ number: number; sha: string }> => stack.merged(branch, title, files);
  /** One more pass after the controllers settle: it writes nothing to either side. */
  async function lastPassWritesNothing(): Promise<TargetRun> {
    kube.tick(2);
    github.requestLog.reset();
    kube.requestLog.reset();
    const run = await pass();
    assert.deepEqual(github.requestLog.writes(), []);
    assert.deepEqual(kube.requestLog.writes(), []);
    return run;
  }
  const setOf = (run: TargetRun, name: string): StatefulSetReport | undefined => run.report?.statefulSets.find((s) => s.name === name);
  const claims = (): Array<{ name: string; uid: string }> => kube.store.list(pvcType, 'db').map((p) => ({ name: p.metadata.name, uid: p.metadata.uid ?? '' }));
  const pods = (): Array<{ name: string; uid: string }> => kube.store.list(podType, 'db').map((p) => ({ name: p.metadata.name, uid: p.metadata.uid ?? '' }));
  const uidsOf = (objects: Array<{ name: string; uid: string }>): Map<string, string> => new Map(objects.map((o) => [o.name, o.uid]));
  const openRecoveries = () => github.state.pulls.filter((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/recover/'));
  const statuses = (sha: string) => github.state.statuses.filter((s) => s.sha === sha && s.context === 'sts-volume-gitops/demo/db/web');

  before(async () => {
    stack = await startRecordedStackE2e('sts-csi-e2e-', { 'k8s/web.yaml': web('1Gi'), 'k8s/cache.yaml': cache('1Gi') }, storageClasses);
    ({ kube, github } = stack);
    core = kube.kubeConfig().makeApiClient(CoreV1Api);
  });
  after(() => stack.close());

  it('starts converged: both sets Running on their bound claims', async () => {
    const run = await passUntil('converged at 1Gi', (r) => r.report?.statefulSets.every((s) => s.outcome === 'converged') === true);
    assert.equal(run.report?.statefulSets.length, 2);
    uids.pvcs = uidsOf(claims());
    uids.pods = uidsOf(pods());
    assert.deepEqual([...uids.pvcs.keys()].sort(), ['data-cache-0', 'data-web-0', 'data-web-1']);
    assert.deepEqual([...uids.pods.keys()].sort(), ['cache-0', 'web-0', 'web-1']);
  });

  let growth: { number: number; sha: string };
  it('finds 1Gi -> 100Gi ControllerResizeInfeasible on the next pass and opens a recovery pull request proposing 50Gi in the driver\'s words', async () => {
    growth = await merged('grow-web', 'Grow web and cache to 100Gi', { 'k8s/web.yaml': web('100Gi'), 'k8s/cache.yaml': cache('100Gi') });
    const run = await passUntil('the recovery pull requests', (r) => r.recovery?.outcomes.filter((o) => o.action === 'opened').length === 2);
    // The report: failed for good, quoting the ControllerResizeError condition the driver's words are in.
    const sts = setOf(run, 'web');
    assert.equal(sts?.outcome, 'failed');
    for (const pvc of sts?.templates[0]?.pvcs ?? []) {
      assert.deepEqual([pvc.state, pvc.terminal, pvc.message, pvc.condition?.type], ['failed', true, driverRefusal, 'ControllerResizeError']);
    }
    assert.equal(kube.store.get(pvcType, 'db', 'data-web-0')?.status?.allocatedResourceStatuses && (kube.store.get(pvcType, 'db', 'data-web-0')?.status?.allocatedResourceStatuses as { storage?: string }).storage, 'ControllerResizeInfeasible');
    assert.deepEqual(passVerdict({ target: 'demo', report: run.report, error: undefined }).problems.map((p) => [p.subject, p.reason]).sort(), [['db/cache', 'expansion-failed'], ['db/web', 'expansion-failed']]);
    // The recovery pull request: 50Gi, the driver quoted, one value's bytes changed.
    const pr = openRecoveries().find((p) => p.head === 'sts-volume-gitops/recover/demo/db/web/data');
    assert.ok(pr, 'a recovery pull request for web');
    assert.equal(pr.title, 'Recover db/web data: 100Gi → 50Gi (expansion failed)');
    assert.ok(pr.body?.includes(`data-web-0: ControllerResizeError: ${driverRefusal}`), pr.body ?? '');
    assert.match(pr.body ?? '', /data-web-1: VolumeResizeFailed: resize volume "pvc-[^"]+" by resizer "hostpath\.csi\.k8s\.io" failed: rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200/);
    assert.match(pr.body ?? '', /the driver states a maximum of 50Gi; 50Gi is the largest size in the template's unit under it/);
    assert.equal(await github.readFile(pr.head, 'k8s/web.yaml'), web('100Gi').replace('storage: 100Gi', 'storage: 50Gi'));
    assert.match(openRecoveries().find((p) => p.head.endsWith('/db/cache/data'))?.body ?? '', /hostpath-nonode\.csi\.k8s\.io/);
    // Its progress: a failing status on the merge commit and a comment on the pull request, both in the driver's words.
    const status = statuses(growth.sha).at(-1);
    assert.deepEqual([status?.state, status?.description], ['failure', `data: ${driverRefusal}`]);
    assert.ok(commentBodies(github, growth.number).some((b) => b.includes(driverRefusal)), commentBodies(github, growth.number).join('\n---\n'));
    // Nothing the tool did (recreating the StatefulSet, patching the claims) replaced a pod or a claim.
    assert.deepEqual(uidsOf(claims()), uids.pvcs);
    assert.deepEqual(uidsOf(pods()), uids.pods);
  });

  let recoveryCommit = '';
  it('merged, the lowered size is accepted, the volumes wait for their node, and the report says what the kubelet does', async () => {
    const pr = openRecoveries().find((p) => p.head === 'sts-volume-gitops/recover/demo/db/web/data');
    assert.ok(pr);
    recoveryCommit = pr.headSha;
    await github.mergePullRequest(pr.number);
    const cachePr = openRecoveries().find((p) => p.head.endsWith('/db/cache/data'));
    assert.ok(cachePr);
    await github.mergePullRequest(cachePr.number);
    const run = await passUntil('waiting for the node', (r) => setOf(r, 'web')?.templates[0]?.pvcs.every((p) => p.state === 'waiting-for-node') === true
      && setOf(r, 'cache')?.outcome === 'converged');
    const pvc = kube.store.get(pvcType, 'db', 'data-web-0');
    assert.deepEqual([(pvc?.spec?.resources as { requests: { storage: string } }).requests.storage, (pvc?.status?.allocatedResourceStatuses as { storage: string }).storage], ['50Gi', 'NodeResizePending']);
    const sts = setOf(run, 'web');
    assert.equal(sts?.outcome, 'in-progress');
    // The tool cannot tell an offline driver from a kubelet yet to sync the pod: no restart is advised before stalledAfter.
    assert.equal(sts?.templates[0]?.pvcs[0]?.message, 'the kubelet on node-1 expands the file system at its next sync of pod web-0, which runs '
      + '(every --sync-frequency, 1m by default); no restart is needed unless it still waits after stalledAfter (1h)');
    // The nonode driver finishes at the lowered size at once, as recorded.
    assert.equal(kube.store.get(pvcType, 'db', 'data-cache-0')?.metadata.annotations?.['volume.kubernetes.io/node-expansion-not-required'], 'true');
    assert.deepEqual(uidsOf(claims()), uids.pvcs);
    assert.deepEqual(uidsOf(pods()), uids.pods, 'the tool restarts no pod: the node step is a person\'s');
    // Its status (on the recovery's commit) and comment say the volumes wait for their node, and what the kubelet does.
    const status = statuses(recoveryCommit).at(-1);
    assert.deepEqual([status?.state, status?.description], ['pending', 'resizing: 0/2 replicas at 50Gi; data-web-0, data-web-1 wait for their node to expand the file system']);
    assert.match(commentBodies(github, pr.number).at(-1) ?? '', /data-web-1 \| 50Gi \| 1Gi \| ⏳ waiting for the node to expand the file system: the kubelet on node-1 expands the file system at its next sync of pod web-1/);
  });

  it('once a person restarts the pods, the node step is done and the set converges, every claim kept and a last pass writing nothing', async () => {
    for (const name of ['web-0', 'web-1']) await core.deleteNamespacedPod({ namespace: 'db', name });
    const run = await passUntil('converged at 50Gi', (r) => r.report?.statefulSets.every((s) => s.outcome === 'converged') === true);
    for (const name of ['data-web-0', 'data-web-1', 'data-cache-0']) {
      const pvc = kube.store.get(pvcType, 'db', name);
      assert.deepEqual([(pvc?.spec?.resources as { requests: { storage: string } }).requests.storage, (pvc?.status?.capacity as { storage: string }).storage], ['50Gi', '50Gi'], name);
    }
    assert.equal(passVerdict({ target: 'demo', report: run.report, error: undefined }).outcome, 'ok');
    assert.deepEqual(uidsOf(claims()), uids.pvcs);
    uids.pods = uidsOf(pods());
    assert.deepEqual([...uids.pods.keys()].sort(), ['cache-0', 'web-0', 'web-1']);
    assert.deepEqual([statuses(recoveryCommit).at(-1)?.state, statuses(recoveryCommit).at(-1)?.description], ['success', '2/2 replicas at 50Gi']);
    await lastPassWritesNothing();
    assert.deepEqual(uidsOf(pods()), uids.pods);
  });

  it('a class change to fast converges, named as one', async () => {
    const change = await merged('web-fast', 'Faster disks for web', { 'k8s/web.yaml': web('50Gi', 'fast') });
    const run = await passUntil('in fast', (r) => setOf(r, 'web')?.outcome === 'converged');
    for (const name of ['data-web-0', 'data-web-1']) assert.equal(kube.store.get(pvcType, 'db', name)?.status?.currentVolumeAttributesClassName, 'fast');
    assert.deepEqual([statuses(change.sha).at(-1)?.state, statuses(change.sha).at(-1)?.description], ['success', '2/2 replicas in fast']);
    assert.match(commentBodies(github, change.number).at(-1) ?? '', /Volume class change/);
    assert.equal(setOf(run, 'web')?.templates[0]?.change, 'class');
    // kubectl describe says a class change, never a resize (issue 35 item 6).
    const events = kube.store.list(mustResourceType('v1', 'Event'), 'db').filter((e) => (e.involvedObject as { kind?: string; name?: string }).name === 'web'
      && (e.involvedObject as { kind?: string }).kind === 'StatefulSet');
    const said = events.map((e) => [e.reason, e.message]);
    assert.ok(said.some(([reason, message]) => reason === 'VolumeClaimTemplateClassChanged' && message === 'all 2 PVCs of data are in VolumeAttributesClass fast'), JSON.stringify(said));
    assert.ok(!said.some(([, message]) => /reached 50Gi in VolumeAttributesClass fast/.test(String(message))), JSON.stringify(said));
    assert.deepEqual(uidsOf(claims()), uids.pvcs);
    assert.deepEqual(uidsOf(pods()), uids.pods);
  });

  it('a class change to broken is found Infeasible and a recovery pull request proposes fast, quoting the driver, not the resolved expansion failure', async () => {
    const change = await merged('web-broken', 'Try the broken class', { 'k8s/web.yaml': web('50Gi', 'broken') });
    const run = await passUntil('the class recovery', (r) => r.recovery?.outcomes.some((o) => o.key === 'db/web/data' && o.kind === 'class-recovery' && o.action === 'opened') === true);
    const sts = setOf(run, 'web');
    assert.equal(sts?.outcome, 'failed');
    for (const pvc of sts?.templates[0]?.pvcs ?? []) {
      assert.deepEqual([pvc.state, pvc.failedOn, pvc.condition?.type, pvc.condition?.message], ['failed', 'class', 'ModifyVolumeError', classRefusal]);
    }
    const pr = openRecoveries().find((p) => p.head === 'sts-volume-gitops/recover/demo/db/web/data.class');
    assert.ok(pr, 'a class recovery pull request');
    assert.match(pr.title, /broken → fast/);
    assert.ok(pr.body?.includes(`data-web-0: ModifyVolumeError (InvalidArgument): ${classRefusal}`), pr.body ?? '');
    assert.match(pr.body ?? '', /VolumeModifyFailed: .*invalid parameters: \[notAMutableParameter\]/);
    // The 100Gi attempt's Events are still listed in the namespace, resolved: never quoted again.
    assert.ok(kube.store.list(mustResourceType('v1', 'Event'), 'db').some((e) => e.reason === 'VolumeResizeFailed'), 'the old Events are still there');
    assert.doesNotMatch(pr.body ?? '', /VolumeResizeFailed|exceeds maximum|ControllerResizeError/);
    assert.doesNotMatch(pr.body ?? '', /proposes a size/);
    const comment = commentBodies(github, change.number).at(-1) ?? '';
    assert.ok(comment.includes(classRefusal), comment);
    assert.doesNotMatch(comment, /VolumeResizeFailed|exceeds maximum/);
    assert.match(comment, /Volume class change/);
    const status = statuses(change.sha).at(-1);
    assert.equal(status?.state, 'failure');
    assert.ok(status?.description?.startsWith(`data: the driver refused to modify the volume to VolumeAttributesClass broken: ${classRefusal}`), status?.description ?? '');
    assert.equal(await github.readFile(pr.head, 'k8s/web.yaml'), web('50Gi', 'fast'));
  });

  it('merged, the class recovery converges, and a last pass writes nothing', async () => {
    const pr = openRecoveries().find((p) => p.head === 'sts-volume-gitops/recover/demo/db/web/data.class');
    assert.ok(pr);
    await github.mergePullRequest(pr.number);
    await passUntil('back in fast', (r) => setOf(r, 'web')?.outcome === 'converged');
    for (const name of ['data-web-0', 'data-web-1']) {
      const pvc = kube.store.get(pvcType, 'db', name);
      assert.deepEqual([pvc?.spec?.volumeAttributesClassName, pvc?.status?.currentVolumeAttributesClassName], ['fast', 'fast'], name);
    }
    const run = await lastPassWritesNothing();
    assert.equal(passVerdict({ target: 'demo', report: run.report, error: undefined }).outcome, 'ok');
    assert.deepEqual(uidsOf(claims()), uids.pvcs);
    assert.deepEqual(uidsOf(pods()), uids.pods);
  });
});
