// Recovery pull requests end to end (KEP-1790): both sandboxes, the real clients, passes through runTargets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import type { TargetRun } from '../../../functions/app/run-targets.ts';
import type { RecoveryOutcome } from '../../../functions/proposals/recovery/manage-recovery-pull-requests.ts';
import { sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import type { Config } from '../../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';
import { statusAnnotation } from '../../../functions/engine/report/template-status.ts';
import { applyPass } from '../../support/passes.ts';
import { startSandboxPair } from '../../support/sandbox-pair.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const stsType = mustResourceType('apps/v1', 'StatefulSet');

function manifest(name: string, storage: string, storageClass = 'capped', replicas = 1): string {
  return statefulSetManifest({ heading: `${name}: analytics storage`, name, namespace: 'analytics', storage, storageClass, replicas, storageComment: 'sized by the platform team' });
}

/** The storage value is a YAML anchor that an annotation after the spec aliases: it cannot be edited alone. */
function anchoredManifest(name: string, storage: string): string {
  return manifest(name, `&size ${storage}`).replace(`metadata:\n  name: ${name}\n  namespace: analytics\n`, '')
    + `metadata:\n  name: ${name}\n  namespace: analytics\n  annotations: { platform/size: *size }\n`;
}

describe('recovery pull requests', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const initial: Record<string, string> = {
    'k8s/wh1.yaml': manifest('wh1', '20Gi'),
    'k8s/wh2.yaml': manifest('wh2', '20Gi'),
    'k8s/wh3.yaml': manifest('wh3', '20Gi'),
    'k8s/node.yaml': manifest('node', '10Gi', 'nodeonly'),
    'k8s/split.yaml': manifest('split', '10Gi', 'standard', 2),
    'k8s/anchored.yaml': anchoredManifest('anchored', '20Gi'),
  };

  const pass = (): Promise<TargetRun> => applyPass(config, env);

  async function passes(count: number): Promise<TargetRun> {
    let run: TargetRun | undefined;
    for (let i = 0; i < count; i++) {
      run = await pass();
      kube.tick(2);
    }
    assert.ok(run);
    return run;
  }

  /** Moves the maximum a driver stated, as the status annotation of `name` remembers it, `ms` into the past. */
  function backdateDriverMaximum(name: string, ms: number): void {
    const sts = kube.store.get(stsType, 'analytics', name);
    const annotation = sts?.metadata.annotations?.[statusAnnotation];
    assert.ok(sts && annotation);
    const statuses = JSON.parse(annotation) as Array<{ driverMaximum?: { saidAt: string } }>;
    assert.ok(statuses.some((s) => s.driverMaximum), annotation);
    for (const status of statuses) if (status.driverMaximum) status.driverMaximum.saidAt = new Date(Date.parse(status.driverMaximum.saidAt) - ms).toISOString();
    kube.store.replace(stsType, { ...sts, metadata: { ...sts.metadata, annotations: { ...sts.metadata.annotations, [statusAnnotation]: JSON.stringify(statuses) } } });
  }

  function openRecoveries(): Array<{ number: number; head: string; title: string; body: string | null }> {
    return github.state.pulls.filter((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/recover/'));
  }

  before(async () => {
    ({ kube, github, config } = await startSandboxPair({
      name: 'recovery', files: initial, tokenEnv: 'RECOVERY_TOKEN', env, allow: ['analytics'],
      // The story grows 10Gi to 100Gi, ten times, on purpose: more than the default growth factor (5) allows.
      targetLines: '    guardrails: { maxGrowthFactor: 10 }\n',
      seed: {
        namespaces: ['analytics'],
        storageClasses: [
          { name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '50Gi' } },
          { name: 'nodeonly', allowVolumeExpansion: true, driver: { expansion: 'node-only', maxVolumeSize: '30Gi' } },
          { name: 'standard', default: true, allowVolumeExpansion: true },
        ],
        statefulSets: Object.values(initial).map((text) => load(text)),
      },
    }));
    // Case 1 and 2 of KEP-1790: grow beyond what the drivers can do.
    await github.commitFiles({
      branch: 'main', message: 'Grow the warehouses', files: {
        'k8s/wh1.yaml': manifest('wh1', '100Gi'), 'k8s/wh2.yaml': manifest('wh2', '100Gi'), 'k8s/wh3.yaml': manifest('wh3', '100Gi'),
        'k8s/node.yaml': manifest('node', '100Gi', 'nodeonly'), 'k8s/anchored.yaml': anchoredManifest('anchored', '100Gi'),
      },
    });
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('opens one recovery PR per failed template with the size under the driver maximum and a one-line change (cases 1 and 2)', async () => {
    const run = await passes(8);
    const prs = openRecoveries();
    assert.deepEqual(prs.map((p) => p.head).sort(), [
      'sts-volume-gitops/recover/demo/analytics/node/data',
      'sts-volume-gitops/recover/demo/analytics/wh1/data',
      'sts-volume-gitops/recover/demo/analytics/wh2/data',
      'sts-volume-gitops/recover/demo/analytics/wh3/data',
    ]);
    const wh1 = prs.find((p) => p.head.endsWith('/wh1/data'));
    assert.equal(wh1?.title, 'Recover analytics/wh1 data: 100Gi → 50Gi (expansion failed)');
    assert.match(wh1?.body ?? '', /exceeds maximum allowed 53687091200/);
    assert.match(wh1?.body ?? '', /strictly above the PVC's capacity \(KEP-1790\)/);
    const before = await github.readFile('main', 'k8s/wh1.yaml');
    const proposed = await github.readFile(wh1?.head ?? '', 'k8s/wh1.yaml');
    assert.equal(proposed, before?.replace('storage: 100Gi  # sized', 'storage: 50Gi  # sized'), 'only the bytes of the value change');
    const node = prs.find((p) => p.head.endsWith('/node/data'));
    assert.match(node?.title ?? '', /100Gi → 30Gi/);
    // The anchored template's value cannot be changed alone: its recovery fails on its own, loudly, and the others open.
    const anchored = run.recovery?.outcomes.find((o) => o.key === 'analytics/anchored/data');
    assert.equal(anchored?.action, 'failed');
    assert.match(anchored?.reason ?? '', /would change more than the storage value of data/);
  });

  it('keeps one PR over many passes and writes nothing while the proposal is the same', async () => {
    github.requestLog.reset();
    await passes(3);
    assert.equal(openRecoveries().length, 4);
    assert.deepEqual(github.requestLog.writes(), []);
  });

  it('never takes a fork\'s pull request for one of its recovery PRs, even with our branch name and marker', async () => {
    await github.forkRepository('mallory');
    const branch = 'sts-volume-gitops/recover/demo/analytics/gone/data';
    await github.commitFiles({ fork: 'mallory', branch, message: 'Look like a recovery', files: { 'k8s/gone.yaml': '# nothing\n' } });
    const number = await github.openPullRequest({ head: `mallory:${branch}`, title: 'Recover', author: 'mallory', body: '<!-- sts-volume-gitops:recovery key=analytics/gone/data failed=100Gi proposed=50Gi -->' });
    await passes(1);
    assert.equal(github.state.pulls.find((p) => p.number === number)?.state, 'open');
    assert.equal(github.state.comments.filter((c) => c.issue === number).length, 0);
  });

  it('leaves a branch a person pushed to alone and says so in a comment', async () => {
    const wh2 = openRecoveries().find((p) => p.head.endsWith('/wh2/data'));
    assert.ok(wh2);
    const human = await github.commitFiles({ branch: wh2.head, message: 'Use 45Gi instead', files: { 'k8s/wh2.yaml': manifest('wh2', '45Gi') }, author: 'Dana Developer' });
    await passes(2);
    assert.equal((await github.state.git.resolve(`refs/heads/${wh2.head}`)), human);
    assert.equal(github.state.comments.filter((c) => c.issue === wh2.number && c.body.includes('someone else pushed')).length, 1);
  });

  it('does not propose a recovery again after it was closed without merging', async () => {
    const wh3 = openRecoveries().find((p) => p.head.endsWith('/wh3/data'));
    assert.ok(wh3);
    await github.state.git.deleteRef(`refs/heads/${wh3.head}`);
    const pr = github.state.pulls.find((p) => p.number === wh3.number);
    assert.ok(pr);
    pr.state = 'closed';
    pr.closedAt = new Date().toISOString();
    const run = await passes(2);
    assert.equal(openRecoveries().filter((p) => p.head.endsWith('/wh3/data')).length, 0);
    assert.equal(run.recovery?.outcomes.find((o) => o.key === 'analytics/wh3/data')?.action, 'declined-before');
  });

  it('after the recovery PR is merged, the PVCs go down to the new size, expand, and the status turns green', async () => {
    const wh1 = openRecoveries().find((p) => p.head.endsWith('/wh1/data'));
    assert.ok(wh1);
    await github.mergePullRequest(wh1.number);
    let run = await passes(1);
    for (let i = 0; i < 10 && run.report?.statefulSets.find((s) => s.name === 'wh1')?.outcome !== 'converged'; i++) run = await passes(1);
    assert.equal(run.report?.statefulSets.find((s) => s.name === 'wh1')?.outcome, 'converged');
    const pvc = kube.store.get(pvcType, 'analytics', 'data-wh1-0');
    assert.deepEqual([(pvc?.spec?.resources as { requests: { storage: string } }).requests.storage, (pvc?.status?.capacity as { storage: string }).storage], ['50Gi', '50Gi']);
    await pass();
    const statuses = github.state.statuses.filter((s) => s.context === 'sts-volume-gitops/demo/analytics/wh1');
    assert.equal(statuses.at(-1)?.state, 'success');
  });

  it('keeps a recovery PR open while its manifest cannot be read (not evaluated is not resolved)', async () => {
    const node = openRecoveries().find((p) => p.head.endsWith('/node/data'));
    assert.ok(node);
    await github.commitFiles({ branch: 'main', message: 'Typo', files: { 'k8s/node.yaml': manifest('node', '100Gi', 'nodeonly').replace('replicas: 1', 'replicas: [1') } });
    const run = await passes(2);
    assert.ok((run.report?.manifestErrors.length ?? 0) > 0);
    assert.equal(github.state.pulls.find((p) => p.number === node.number)?.state, 'open');
    await github.commitFiles({ branch: 'main', message: 'Fix the typo', files: { 'k8s/node.yaml': manifest('node', '100Gi', 'nodeonly') } });
    const fixed = await passes(1);
    assert.equal(fixed.recovery?.outcomes.find((o) => o.key === 'analytics/node/data')?.action, 'unchanged');
  });

  it('keeps an open recovery PR while the size Git now asks for is applied, and closes it with a reason once reached', async () => {
    const node = openRecoveries().find((p) => p.head.endsWith('/node/data'));
    assert.ok(node);
    const state = (): string | undefined => github.state.pulls.find((p) => p.number === node.number)?.state;
    await github.commitFiles({ branch: 'main', message: 'Settle node at 20Gi', files: { 'k8s/node.yaml': manifest('node', '20Gi', 'nodeonly') } });
    await passes(1);
    // Should 20Gi fail too, this same pull request would be updated to recover it (one per template, issue 35).
    assert.equal(state(), 'open');
    for (let i = 0; i < 10 && state() === 'open'; i++) await passes(1);
    assert.equal(state(), 'closed');
    assert.match(github.state.comments.filter((c) => c.issue === node.number).at(-1)?.body ?? '', /the template changed in Git \\\(now 20Gi, was 100Gi\\\)/);
    assert.ok(github.state.pulls.find((p) => p.number === node.number)?.labels.includes('closed-by-sts-volume-gitops'));
  });

  it('proposes again a recovery it closed itself when the same failure comes back (its closure is not a person declining)', async () => {
    for (let i = 0; i < 10 && kube.store.get(pvcType, 'analytics', 'data-node-0')?.status?.capacity !== undefined
      && (kube.store.get(pvcType, 'analytics', 'data-node-0')?.status?.capacity as { storage?: string }).storage !== '20Gi'; i++) await passes(1);
    await github.commitFiles({ branch: 'main', message: 'Grow node again', files: { 'k8s/node.yaml': manifest('node', '100Gi', 'nodeonly') } });
    // The driver's 30Gi maximum is remembered (issue 35): the same growth is blocked before anything is written...
    const blocked = await pass();
    const node = blocked.report?.statefulSets.find((s) => s.name === 'node');
    assert.equal(node?.outcome, 'blocked');
    assert.deepEqual(node?.templates[0]?.reasonCodes, ['above-driver-maximum']);
    // ...until what it said is a week old: then the failure can come back, as it does here.
    backdateDriverMaximum('node', 8 * 24 * 60 * 60 * 1000);
    let action: string | undefined;
    for (let i = 0; i < 10 && action !== 'opened'; i++) {
      const run = await passes(1);
      action = run.recovery?.outcomes.find((o) => o.key === 'analytics/node/data')?.action;
      assert.notEqual(action, 'declined-before');
    }
    assert.equal(action, 'opened');
    assert.equal(openRecoveries().filter((p) => p.head.endsWith('/node/data')).length, 1);
  });

  it('closes the recovery PRs it can when one cannot be closed (its conversation is locked), and reports that one', async () => {
    const [node, wh2] = ['node', 'wh2'].map((name) => openRecoveries().find((p) => p.head.endsWith(`/${name}/data`)));
    assert.ok(node && wh2, JSON.stringify(openRecoveries().map((p) => p.head)));
    const locked = github.state.pulls.find((p) => p.number === node.number);
    assert.ok(locked);
    locked.locked = true;
    await github.commitFiles({ branch: 'main', message: 'Settle node and wh2', files: { 'k8s/node.yaml': manifest('node', '25Gi', 'nodeonly'), 'k8s/wh2.yaml': manifest('wh2', '30Gi') } });
    // While the new sizes are being applied both stay open (should they fail too, they are updated in place)...
    const applying = await pass();
    assert.deepEqual(applying.recovery?.outcomes.filter((o) => (o.key === 'analytics/wh2/data' || o.key === 'analytics/node/data') && (o.action === 'closed' || o.action === 'failed')), []);
    // ...and once they are reached, each is closed on its own.
    const outcomes = new Map<string, RecoveryOutcome>();
    for (let i = 0; i < 10 && !(outcomes.get('analytics/wh2/data')?.action === 'closed' && outcomes.get('analytics/node/data')?.action === 'failed'); i++) {
      kube.tick(2);
      for (const outcome of (await pass()).recovery?.outcomes ?? []) outcomes.set(outcome.key, outcome);
    }
    assert.equal(outcomes.get('analytics/wh2/data')?.action, 'closed');
    assert.equal(github.state.pulls.find((p) => p.number === wh2.number)?.state, 'closed');
    assert.equal(outcomes.get('analytics/node/data')?.action, 'failed');
    assert.match(outcomes.get('analytics/node/data')?.reason ?? '', /could not close it \(the template changed in Git.*\): .*issue is locked/);
    assert.equal(github.state.pulls.find((p) => p.number === node.number)?.state, 'open');
    // Unlocked, the next pass closes it.
    locked.locked = false;
    assert.equal((await pass()).recovery?.outcomes.find((o) => o.key === 'analytics/node/data')?.action, 'closed');
    assert.equal(github.state.pulls.find((p) => p.number === node.number)?.state, 'closed');
  });

  it('opens no PR for a partial failure and explains the ways out', async () => {
    // One replica already reached the size, the other failed: no single size recovers both.
    const pvc0 = kube.store.get(pvcType, 'analytics', 'data-split-0');
    const pvc1 = kube.store.get(pvcType, 'analytics', 'data-split-1');
    assert.ok(pvc0 && pvc1);
    await github.commitFiles({ branch: 'main', message: 'Grow split', files: { 'k8s/split.yaml': manifest('split', '40Gi', 'standard', 2) } });
    await passes(6);
    assert.equal((kube.store.get(pvcType, 'analytics', 'data-split-0')?.status?.capacity as { storage?: string } | undefined)?.storage, '40Gi');
    const failing = kube.store.get(pvcType, 'analytics', 'data-split-1');
    assert.ok(failing);
    kube.store.replace(pvcType, { ...failing, status: { ...failing.status, capacity: { storage: '10Gi' }, allocatedResources: { storage: '40Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' }, conditions: [{ type: 'ControllerResizeError', status: 'True', message: 'disk pool exhausted' }] } });
    const run = await pass();
    const outcome = run.recovery?.outcomes.find((o) => o.key === 'analytics/split/data');
    assert.equal(outcome?.action, 'impossible', JSON.stringify(run.recovery?.outcomes.map((o) => [o.key, o.action])));
    assert.match(outcome?.reason ?? '', /data-split-0 already reached 40Gi while data-split-1 failed/);
    assert.equal(openRecoveries().filter((p) => p.head.endsWith('/split/data')).length, 0);
    const progress = run.feedback?.progress.find((p) => p.statefulSet === 'analytics/split');
    assert.match(progress?.markdown ?? '', /No recovery pull request: .*Ways out: raise the storage provider/s);
  });
});
