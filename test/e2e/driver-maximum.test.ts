// Issue 35 items 1 and 2 end to end, on the Kubernetes sandbox seeded as the recorded CSI stack (csi-driver-host-path
// v1.17.1 with `--max-volume-size=53687091200` behind external-resizer v2.0.0: ../shared/conformance/csi-v1.34.9/), the
// GitHub sandbox and the tool under its generated RBAC, passes through runTargets. Ticks only, no sleeps.
//
// - `cache` (the driver without node expansion) grows 1Gi -> 100Gi and fails: the driver's 50Gi maximum is known from
//   then on, so a person's pull request to 80Gi is blocked before merge, quoting the driver and when it said it; after
//   the recovery converged (the claims' conditions gone), a pull request to 60Gi still is; merged anyway, the pass
//   applies nothing of it.
// - `web` starts at 50Gi, the maximum, on the other driver, which never failed: 60Gi is applied and refused. No size
//   can succeed: the recovery pull request puts Git back at 50Gi, never above; the progress check, comment and pass
//   report say so; passes recreate nothing for it; merged, the template goes back to 50Gi, the claims are left asking
//   for 60Gi (KEP-1790: not at or below their capacity), and the set converges.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { passVerdict } from '../../functions/engine/report/pass-verdict.ts';
import { escapeMarkdown } from '../../functions/feedback/escape-markdown.ts';
import type { StatefulSetReport } from '../../functions/engine/report/pass-report.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { commentBodies } from '../support/passes.ts';
import { startRecordedStackE2e, type RecordedStackE2e } from '../support/recorded-stack-e2e.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const podType = mustResourceType('v1', 'Pod');
const stsType = mustResourceType('apps/v1', 'StatefulSet');

const refusal = (requested: bigint): string => `Requested capacity ${requested} exceeds maximum allowed 53687091200`;
const gi = 2n ** 30n;

function web(storage: string): string {
  return statefulSetManifest({ name: 'web', namespace: 'db', storage, storageClass: 'csi-hostpath', replicas: 2, storageComment: 'sized by the platform team' });
}

function cache(storage: string): string {
  return statefulSetManifest({ name: 'cache', namespace: 'db', storage, storageClass: 'csi-hostpath-nonode', replicas: 1 });
}

describe('volumes at their driver\'s maximum (issue 35)', () => {
  let stack: RecordedStackE2e;
  let kube: KubeSandbox;
  let github: GitHubSandbox;

  const pass = (): Promise<TargetRun> => stack.pass();
  const passUntil = (what: string, until: (run: TargetRun) => boolean): Promise<TargetRun> => stack.passUntil(what, until);
  const merged = (branch: string, title: string, files: Record<string, string>): Promise<{ number: number; sha: string }> => stack.merged(branch, title, files);
  const setOf = (run: TargetRun, name: string): StatefulSetReport | undefined => run.report?.statefulSets.find((s) => s.name === name);
  const openRecoveries = () => github.state.pulls.filter((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/recover/'));
  const recoveriesOf = (name: string) => github.state.pulls.filter((p) => p.head === `sts-volume-gitops/recover/demo/db/${name}/data`);
  const statuses = (sha: string, context: string) => github.state.statuses.filter((s) => s.sha === sha && s.context === context);
  const request = (name: string): string | undefined => (kube.store.get(pvcType, 'db', name)?.spec?.resources as { requests?: { storage?: string } } | undefined)?.requests?.storage;
  const claimStatus = (name: string) => kube.store.get(pvcType, 'db', name)?.status as { capacity?: { storage?: string }; allocatedResourceStatuses?: { storage?: string } } | undefined;
  const uids = (type: typeof pvcType): Map<string, string> => new Map(kube.store.list(type, 'db').map((o) => [o.metadata.name, o.metadata.uid ?? '']));
  const templateSize = (name: string): unknown => ((kube.store.get(stsType, 'db', name)?.spec?.volumeClaimTemplates as Array<{ spec: { resources: { requests: { storage: string } } } }> | undefined)?.[0])?.spec.resources.requests.storage;

  before(async () => {
    stack = await startRecordedStackE2e('sts-driver-maximum-', { 'k8s/web.yaml': web('50Gi'), 'k8s/cache.yaml': cache('1Gi') });
    ({ kube, github } = stack);
    await passUntil('converged', (r) => r.report?.statefulSets.every((s) => s.outcome === 'converged') === true);
  });
  after(() => stack.close());

  let cacheGrowth: { number: number; sha: string };
  it('after 100Gi failed with the driver\'s maximum, a pull request to 80Gi is blocked before merge, quoting the driver and when it said it', async () => {
    cacheGrowth = await merged('grow-cache', 'Grow cache to 100Gi', { 'k8s/cache.yaml': cache('100Gi') });
    await passUntil('the recovery pull request', (r) => r.recovery?.outcomes.some((o) => o.key === 'db/cache/data' && o.action === 'opened') === true);
    assert.match(openRecoveries().find((p) => p.head.endsWith('/db/cache/data'))?.title ?? '', /100Gi → 50Gi/);
    const said = (kube.store.get(pvcType, 'db', 'data-cache-0')?.status?.conditions as Array<{ type: string; lastTransitionTime: string }>)
      .find((c) => c.type === 'ControllerResizeError')?.lastTransitionTime;
    assert.ok(said);
    const saidAt = new Date(said).toISOString();

    const head = await github.commitFiles({ branch: 'cache-80', message: 'cache to 80Gi', files: { 'k8s/cache.yaml': cache('80Gi') } });
    const pr = await github.openPullRequest({ head: 'cache-80', title: 'cache to 80Gi' });
    await pass();
    const [status] = statuses(head, 'sts-volume-gitops/validate (demo)');
    assert.equal(status?.state, 'failure', 'not "will resize": the driver already refused more than 50Gi');
    assert.match(status?.description ?? '', /^db\/cache data: 80Gi is above the driver's maximum, 50Gi: hostpath-nonode\.csi\.k8s\.io said at /);
    const comment = commentBodies(github, pr).at(-1) ?? '';
    assert.ok(comment.includes(`hostpath-nonode.csi.k8s.io said at ${saidAt}, of db/data-cache-0`), comment);
    assert.ok(comment.includes(escapeMarkdown(refusal(100n * gi))), comment); // digits a SHA could be are broken on GitHub
    assert.match(comment, /❌ blocked/);
    assert.doesNotMatch(comment, /will resize|USD a month/);
  });

  it('once the recovery converged and the claim\'s condition is gone, a pull request above the maximum is still blocked, from what the pass remembered', async () => {
    const recovery = openRecoveries().find((p) => p.head.endsWith('/db/cache/data'));
    assert.ok(recovery);
    await github.mergePullRequest(recovery.number);
    await passUntil('cache converged at 50Gi', (r) => setOf(r, 'cache')?.outcome === 'converged');
    const conditions = (kube.store.get(pvcType, 'db', 'data-cache-0')?.status?.conditions ?? []) as Array<{ type: string }>;
    assert.ok(!conditions.some((c) => c.type === 'ControllerResizeError'), 'the lowered request drops the error condition, as recorded');

    const head = await github.commitFiles({ branch: 'cache-60', message: 'cache to 60Gi', files: { 'k8s/cache.yaml': cache('60Gi') } });
    const pr = await github.openPullRequest({ head: 'cache-60', title: 'cache to 60Gi' });
    await pass();
    assert.equal(statuses(head, 'sts-volume-gitops/validate (demo)')[0]?.state, 'failure');
    const comment = commentBodies(github, pr).at(-1) ?? '';
    assert.match(comment, /60Gi is above the driver's maximum, 50Gi: hostpath-nonode\.csi\.k8s\.io said at \d{4}-\d\d-\d\dT[\d:.]+Z, of db\/data-cache-0/);
    assert.match(comment, /The volumes have 50Gi already, so no larger size can succeed on this driver/);
    assert.match(comment, /remembered until \d{4}-/);

    // Merged anyway (a person overrides a red check): nothing of it is applied, so nothing is recreated for it.
    const setUid = kube.store.get(stsType, 'db', 'cache')?.metadata.uid;
    await github.mergePullRequest(pr);
    const run = await pass();
    kube.tick(2);
    await pass();
    assert.equal(setOf(run, 'cache')?.outcome, 'blocked');
    assert.deepEqual(setOf(run, 'cache')?.templates[0]?.reasonCodes, ['above-driver-maximum']);
    assert.equal(kube.store.get(stsType, 'db', 'cache')?.metadata.uid, setUid, 'the StatefulSet is not recreated');
    assert.equal(templateSize('cache'), '50Gi');
    assert.equal(request('data-cache-0'), '50Gi');
    assert.ok(!openRecoveries().some((p) => p.head.endsWith('/db/cache/data')), 'nothing failed: no recovery is proposed');
    assert.ok(cacheGrowth.number > 0);
  });

  let webGrowth: { number: number; sha: string };
  it('volumes at 50Gi asked for 60Gi: the recovery proposes no size above 50Gi, and the check, comment and report say no size can succeed', async () => {
    webGrowth = await merged('grow-web', 'Grow web to 60Gi', { 'k8s/web.yaml': web('60Gi') });
    const run = await passUntil('the recovery pull request', (r) => r.recovery?.outcomes.some((o) => o.key === 'db/web/data' && o.action === 'opened') === true);
    for (const name of ['data-web-0', 'data-web-1']) {
      assert.deepEqual([request(name), claimStatus(name)?.capacity?.storage, claimStatus(name)?.allocatedResourceStatuses?.storage], ['60Gi', '50Gi', 'ControllerResizeInfeasible']);
    }
    const sts = setOf(run, 'web');
    assert.equal(sts?.outcome, 'failed');
    assert.deepEqual(sts?.templates[0]?.atDriverMaximum, {
      noSizeCanSucceed: 'no size can succeed: the driver\'s maximum is 50Gi and the volumes have 50Gi', maximum: '50Gi', volumes: '50Gi',
    });
    // The recovery pull request: Git back to the size the volumes have, saying why and what becomes of the claims.
    const [pr] = recoveriesOf('web');
    assert.ok(pr);
    assert.equal(pr.title, 'Recover db/web data: 60Gi → 50Gi (expansion failed)');
    const body = pr.body ?? '';
    assert.ok(body.includes(refusal(60n * gi)), body);
    assert.match(body, /No size can succeed: the driver's maximum is 50Gi and the volumes have 50Gi; 50Gi is the size the volumes have/);
    assert.match(body, /each keeps asking for 60Gi: spec\.resources\.requests\.storage and status\.allocatedResources stay 60Gi, with allocatedResourceStatuses\.storage ControllerResizeInfeasible/);
    assert.match(body, /StorageClass whose driver allows larger volumes/);
    assert.doesNotMatch(body, /is accepted and the expansion restarts|patches the PVCs down/);
    assert.equal(await github.readFile(pr.head, 'k8s/web.yaml'), web('50Gi'));
    // The progress check on the 60Gi commit, its comment and the pass report.
    const status = statuses(webGrowth.sha, 'sts-volume-gitops/demo/db/web').at(-1);
    assert.equal(status?.state, 'failure');
    assert.match(status?.description ?? '', /^data: no size can succeed: the driver's maximum is 50Gi and the volumes have 50Gi; failed to expand pvc/);
    const comment = commentBodies(github, webGrowth.number).at(-1) ?? '';
    assert.match(comment, /data: the resize to 60Gi failed for good; no size can succeed: the driver's maximum is 50Gi and the volumes have 50Gi\./);
    assert.match(comment, /A recovery pull request puts Git back at 50Gi, the size the volumes have: /);
    assert.doesNotMatch(comment, /proposes a size that can succeed/);
    assert.match(comment, /What can be done/);
    assert.ok(run.report);
    assert.match(renderPassReport(run.report), /\n {8}no size can succeed: the driver's maximum is 50Gi and the volumes have 50Gi\n {10}- Keep 50Gi/);
    assert.deepEqual(passVerdict({ target: 'demo', report: run.report, error: undefined }).problems.map((p) => [p.subject, p.reason]), [['db/cache', 'above-driver-maximum'], ['db/web', 'expansion-failed']]);
  });

  it('pass after pass, nothing is recreated for it and no size above the driver\'s maximum is ever proposed', async () => {
    const before = { set: kube.store.get(stsType, 'db', 'web')?.metadata.uid, claims: uids(pvcType), pods: uids(podType) };
    for (let i = 0; i < 4; i++) {
      await pass();
      kube.tick(3);
    }
    assert.equal(kube.store.get(stsType, 'db', 'web')?.metadata.uid, before.set);
    assert.deepEqual(uids(pvcType), before.claims);
    assert.deepEqual(uids(podType), before.pods);
    const proposals = github.state.pulls.filter((p) => p.head.startsWith('sts-volume-gitops/recover/'));
    for (const proposal of proposals) {
      const size = /→ (\S+) \(/.exec(proposal.title)?.[1];
      assert.ok(size === '50Gi', `${proposal.title} proposes more than the driver's maximum`);
    }
    assert.equal(recoveriesOf('web').length, 1, 'one recovery pull request, kept');
  });

  it('merged, the template goes back to 50Gi, the claims are left asking for 60Gi, and the set converges without another write', async () => {
    const [pr] = recoveriesOf('web');
    assert.ok(pr);
    const before = { claims: uids(pvcType), pods: uids(podType) };
    await github.mergePullRequest(pr.number);
    // The pass that updates the template finds the volumes at the size; the next one reports the change finished.
    const run = await passUntil('web converged and reported', (r) => setOf(r, 'web')?.templates[0]?.justFinished === true);
    assert.equal(templateSize('web'), '50Gi', 'new replicas ask for a size the driver provides');
    for (const name of ['data-web-0', 'data-web-1']) {
      assert.deepEqual([request(name), claimStatus(name)?.capacity?.storage, claimStatus(name)?.allocatedResourceStatuses?.storage], ['60Gi', '50Gi', 'ControllerResizeInfeasible'], name);
    }
    const pvc = setOf(run, 'web')?.templates[0]?.pvcs[0];
    assert.equal(pvc?.state, 'done');
    assert.match(pvc?.message ?? '', /its volume has 50Gi, the size in Git; the claim keeps asking for 60Gi/);
    assert.deepEqual(uids(pvcType), before.claims);
    assert.deepEqual(uids(podType), before.pods);
    assert.equal(setOf(run, 'web')?.outcome, 'converged');
    assert.deepEqual([statuses(pr.headSha, 'sts-volume-gitops/demo/db/web').at(-1)?.state, statuses(pr.headSha, 'sts-volume-gitops/demo/db/web').at(-1)?.description], ['success', '2/2 replicas at 50Gi']);
    const events = kube.store.list(mustResourceType('v1', 'Event'), 'db').filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === 'web');
    assert.ok(events.some((e) => e.reason === 'VolumeClaimTemplateResized' && e.message === 'all 2 PVCs of data reached 50Gi'), JSON.stringify(events.map((e) => [e.reason, e.message])));
    kube.tick(2);
    github.requestLog.reset();
    kube.requestLog.reset();
    await pass();
    assert.deepEqual(kube.requestLog.writes(), []);
    assert.deepEqual(github.requestLog.writes(), []);
  });
});
