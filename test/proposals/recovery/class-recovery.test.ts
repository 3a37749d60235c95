// Recovery from a refused class modification (KEP-3751) end to end: the v1.34.9 Kubernetes sandbox's modifier answers
// Infeasible for a class its driver cannot reach; a recovery pull request proposes the class the volumes have, changing
// only that value's bytes; merged, the claims go back and the template converges. Plus the pure choice.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import type { PvcReport } from '../../../functions/engine/report/pass-report.ts';
import { chooseRecoveryClass } from '../../../functions/proposals/recovery/class-recovery.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';
import { applyPass, passUntil, writeFiles } from '../../support/passes.ts';

function refused(name: string, current: string | undefined): PvcReport {
  return {
    name, ordinal: 0, state: 'failed', request: '10Gi', capacity: '10Gi', message: 'Infeasible', terminal: true, since: undefined, failedOn: 'class',
    volumeAttributesClass: { requested: 'platinum', current, modifyStatus: 'Infeasible' },
  };
}

describe('chooseRecoveryClass', () => {
  it('proposes the class the refused volumes have', () => {
    const decision = chooseRecoveryClass('platinum', [refused('data-pg-0', 'silver'), refused('data-pg-1', 'silver')]);
    assert.equal(decision.kind, 'propose');
    assert.equal(decision.kind === 'propose' ? decision.className : '', 'silver');
  });

  it('proposes nothing when the volumes are in different classes, or in none', () => {
    assert.match(JSON.stringify(chooseRecoveryClass('platinum', [refused('a', 'silver'), refused('b', 'gold')])), /no one class takes them all back/);
    assert.equal(chooseRecoveryClass('platinum', [refused('a', undefined)]).kind, 'impossible');
  });
});

describe('a recovery pull request for an infeasible class', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const manifest = (className: string): string => statefulSetManifest({
    name: 'pg', namespace: 'db', storage: '10Gi', replicas: 2, volumeAttributesClass: `${className}  # performance tier`,
  });

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-class-recovery-'));
    await writeFiles(join(dir, 'repo'), { 'k8s/pg.yaml': manifest('silver') });
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: {
        namespaces: ['db'],
        // The driver changes IOPS and throughput, not the volume type: `platinum` is refused (Infeasible).
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { acceptedMutableParameterNames: ['iops', 'throughput'] } }],
        volumeAttributesClasses: [
          { name: 'silver', storageClass: 'standard', parameters: { iops: '3000' } },
          { name: 'platinum', storageClass: 'standard', parameters: { type: 'io2', iops: '64000' } },
        ],
        statefulSets: [load(manifest('silver'))],
      },
    });
    kube.tick(3);
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'CLASS_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]'), 'c.yaml', dir);
    env.CLASS_TOKEN = github.token;
    await github.commitFiles({ branch: 'main', message: 'Faster disks for pg', files: { 'k8s/pg.yaml': manifest('platinum') } });
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('opens one pull request proposing the current class, changing only that value', async () => {
    const run = await passUntil(() => applyPass(config, env), kube, (r) => (r.recovery?.outcomes.length ?? 0) > 0);
    const outcome = run.recovery?.outcomes[0];
    assert.equal(outcome?.action, 'opened', outcome?.reason);
    assert.deepEqual([outcome?.key, outcome?.kind], ['db/pg/data', 'class-recovery']);
    const pr = github.state.pulls.find((p) => p.state === 'open' && p.head === 'sts-volume-gitops/recover/demo/db/pg/data.class');
    assert.equal(pr?.title, 'Recover db/pg data: VolumeAttributesClass platinum → silver (modification infeasible)');
    assert.match(pr?.body ?? '', /modifyVolumeStatus: Infeasible/);
    const before = await github.readFile('main', 'k8s/pg.yaml');
    assert.equal(await github.readFile(pr?.head ?? '', 'k8s/pg.yaml'), before?.replace('volumeAttributesClassName: platinum  # performance', 'volumeAttributesClassName: silver  # performance'));
    // No size recovery is proposed for a class failure.
    assert.equal(github.state.pulls.filter((p) => p.head.startsWith('sts-volume-gitops/recover/')).length, 1);
  });

  it('merged, the claims go back to the class their volumes have and the set converges', async () => {
    const pr = github.state.pulls.find((p) => p.state === 'open' && p.head.endsWith('/data.class'));
    assert.ok(pr);
    await github.mergePullRequest(pr.number);
    const run = await passUntil(() => applyPass(config, env), kube, (r) => r.report?.statefulSets[0]?.outcome === 'converged');
    assert.deepEqual(run.report?.statefulSets[0]?.templates[0]?.pvcs.map((p) => p.volumeAttributesClass?.current), ['silver', 'silver']);
  });
});
