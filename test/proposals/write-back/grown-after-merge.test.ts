// A merged change whose volumes an autoscaler grows afterwards, end to end on both sandboxes with the real Octokit and
// client-node over HTTP (issue 36 item 3): Git's size is then a "decrease" below the volumes' capacity, which every
// pass blocks. The merged pull request's progress check says what happened and links the write-back pull request that
// proposes the volumes' size, instead of turning to a bare failure ("not above the current capacity").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { pgManifest, startOneSetSandboxes, type OneSetSandboxes } from '../../support/one-set-sandboxes.ts';
import { commentBodies, passUntil } from '../../support/passes.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const context = 'sts-volume-gitops/demo/db/pg';

describe('a merged change whose volumes are grown outside Git afterwards', () => {
  let world: OneSetSandboxes;
  const lastStatus = (): { sha: string; state: string; description: string | null; targetUrl: string | null } | undefined =>
    world.github.state.statuses.filter((s) => s.context === context).at(-1);

  before(async () => { world = await startOneSetSandboxes('10Gi'); });
  after(async () => { await world.close(); });

  it('says the volumes were grown outside Git since and links the write-back pull request, not a bare failure', async () => {
    await world.github.commitFiles({ branch: 'pg-20', message: 'pg at 20Gi', files: { 'k8s/pg.yaml': pgManifest('20Gi') }, author: 'Dana Developer' });
    const number = await world.github.openPullRequest({ head: 'pg-20', title: 'pg at 20Gi', author: 'dana' });
    await world.github.mergePullRequest(number);
    await passUntil(world.pass, world.kube, (run) => run.feedback?.progress.some((p) => p.statefulSet === 'db/pg' && p.state === 'success') === true);
    const merged = lastStatus();
    assert.equal(merged?.state, 'success');
    // An autoscaler grows both volumes beyond Git's 20Gi, patching the claims directly.
    const core = world.kube.kubeConfig().makeApiClient(CoreV1Api);
    for (const name of ['data-pg-0', 'data-pg-1']) {
      await core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name, fieldManager: 'pvc-autoresizer', body: { spec: { resources: { requests: { storage: '30Gi' } } } } }, mergePatch);
    }
    for (let i = 0; i < 20 && ['data-pg-0', 'data-pg-1'].some((n) => (world.kube.store.get(pvcType, 'db', n)?.status?.capacity as { storage?: string } | undefined)?.storage !== '30Gi'); i++) world.kube.tick(1);
    const run = await world.pass();
    assert.equal(run.report?.statefulSets[0]?.outcome, 'blocked', 'Git\'s 20Gi is a "decrease" below the volumes');
    const url = run.writeBack?.links.get('db/pg/data');
    assert.ok(url !== undefined, JSON.stringify(run.writeBack?.outcomes));
    const writeBack = /\/pull\/(\d+)$/.exec(url)?.[1];
    const status = lastStatus();
    assert.equal(status?.sha, merged?.sha, 'the merged change\'s own check');
    assert.equal(status?.state, 'success', 'every volume has at least what the change asked: not a failure of it');
    assert.equal(status?.description, `data: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request #${writeBack ?? '?'} proposes it`);
    assert.equal(status?.targetUrl, url, 'the check links the write-back pull request');
    const comment = commentBodies(world.github, number).at(-1) ?? '';
    assert.ok(comment.includes(`data: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request [#${writeBack ?? '?'}](${url}) proposes it.`), comment);
    assert.match(comment, /- ℹ️ 20Gi is not above the current capacity .*; the volumes were grown outside Git: a write-back pull request sets Git to their size: /);
    assert.doesNotMatch(comment, /❌/);
  });
});
