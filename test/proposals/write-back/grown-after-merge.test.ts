// A merged change whose volumes an autoscaler grows afterwards, end to end on both sandboxes with the real Octokit and
// client-node over HTTP (issue 36 item 3): Git's size is then a "decrease" below the volumes' capacity, which every
// pass blocks. The merged pull request's progress check says what happened and links the write-back pull request that
// proposes the volumes' size, instead of turning to a bare failure ("not above the current capacity").
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import type { TargetRun } from '../../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';
import { applyPass, commentBodies, passUntil, writeFiles } from '../../support/passes.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const manifest = (storage: string): string => statefulSetManifest({ name: 'pg', storage, replicas: 2 });
const context = 'sts-volume-gitops/demo/db/pg';

describe('a merged change whose volumes are grown outside Git afterwards', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const pass = (): Promise<TargetRun> => applyPass(config, env);
  const lastStatus = (): { sha: string; state: string; description: string | null; targetUrl: string | null } | undefined =>
    github.state.statuses.filter((s) => s.context === context).at(-1);

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-grown-after-merge-'));
    await writeFiles(join(dir, 'repo'), { 'k8s/pg.yaml': manifest('10Gi') });
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }],
        statefulSets: [load(manifest('10Gi'))],
      },
    });
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'GROWN_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]'), 'g.yaml', dir);
    env.GROWN_TOKEN = github.token;
    kube.tick(4);
    await passUntil(pass, kube, (run) => run.report?.statefulSets[0]?.outcome === 'converged');
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('says the volumes were grown outside Git since and links the write-back pull request, not a bare failure', async () => {
    await github.commitFiles({ branch: 'pg-20', message: 'pg at 20Gi', files: { 'k8s/pg.yaml': manifest('20Gi') }, author: 'Dana Developer' });
    const number = await github.openPullRequest({ head: 'pg-20', title: 'pg at 20Gi', author: 'dana' });
    await github.mergePullRequest(number);
    await passUntil(pass, kube, (run) => run.feedback?.progress.some((p) => p.statefulSet === 'db/pg' && p.state === 'success') === true);
    const merged = lastStatus();
    assert.equal(merged?.state, 'success');
    // An autoscaler grows both volumes beyond Git's 20Gi, patching the claims directly.
    const core = kube.kubeConfig().makeApiClient(CoreV1Api);
    for (const name of ['data-pg-0', 'data-pg-1']) {
      await core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name, fieldManager: 'pvc-autoresizer', body: { spec: { resources: { requests: { storage: '30Gi' } } } } }, mergePatch);
    }
    for (let i = 0; i < 20 && ['data-pg-0', 'data-pg-1'].some((n) => (kube.store.get(pvcType, 'db', n)?.status?.capacity as { storage?: string } | undefined)?.storage !== '30Gi'); i++) kube.tick(1);
    const run = await pass();
    assert.equal(run.report?.statefulSets[0]?.outcome, 'blocked', 'Git\'s 20Gi is a "decrease" below the volumes');
    const url = run.writeBack?.links.get('db/pg/data');
    assert.ok(url !== undefined, JSON.stringify(run.writeBack?.outcomes));
    const writeBack = /\/pull\/(\d+)$/.exec(url)?.[1];
    const status = lastStatus();
    assert.equal(status?.sha, merged?.sha, 'the merged change\'s own check');
    assert.equal(status?.state, 'success', 'every volume has at least what the change asked: not a failure of it');
    assert.equal(status?.description, `data: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request #${writeBack ?? '?'} proposes it`);
    assert.equal(status?.targetUrl, url, 'the check links the write-back pull request');
    const comment = commentBodies(github, number).at(-1) ?? '';
    assert.ok(comment.includes(`data: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request [#${writeBack ?? '?'}](${url}) proposes it.`), comment);
    assert.match(comment, /- ℹ️ 20Gi is not above the current capacity .*; the volumes were grown outside Git: a write-back pull request sets Git to their size: /);
    assert.doesNotMatch(comment, /❌/);
  });
});
