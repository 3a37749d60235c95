// A volumeAttributesClassName mapped from a Helm values file (`sizeSources[].value: volumeAttributesClassName`), end to
// end: both sandboxes (Kubernetes v1.34.9 with its volume modifier), the real Octokit and client-node, passes through
// runTargets. A PR's check links the value's line; merged, the rendered set's template and PVCs move to the class;
// an infeasible class gets a recovery PR that edits only that value's bytes in the values file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import type { Config } from '../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { applyPass, commentBodies, passUntil, statusesOf } from '../support/passes.ts';
import { startSandboxPair } from '../support/sandbox-pair.ts';

const types = { pvc: mustResourceType('v1', 'PersistentVolumeClaim'), sts: mustResourceType('apps/v1', 'StatefulSet'), pod: mustResourceType('v1', 'Pod') };

function pgValues(className: string): string {
  return `# postgresql chart values (prod)
primary:
  persistence:
    size: 10Gi
    volumeAttributesClassName: ${className}  # performance tier
`;
}

/** db/pg as the chart renders it (never in Git), its data template in class silver. */
const rendered = {
  apiVersion: 'apps/v1', kind: 'StatefulSet',
  metadata: { name: 'pg', namespace: 'db', labels: { 'app.kubernetes.io/instance': 'pg', 'app.kubernetes.io/managed-by': 'Helm' } },
  spec: {
    serviceName: 'pg', replicas: 2, podManagementPolicy: 'Parallel', selector: { matchLabels: { 'app.kubernetes.io/instance': 'pg' } },
    template: { metadata: { labels: { 'app.kubernetes.io/instance': 'pg' } }, spec: { containers: [{ name: 'postgres', image: 'postgres:16' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', volumeAttributesClassName: 'silver', resources: { requests: { storage: '10Gi' } } } }],
  },
};

const mappings = `    sizeSources:
      - { file: apps/pg/values.yaml, path: primary.persistence.size, statefulSet: db/pg, template: data }
      - { file: apps/pg/values.yaml, path: primary.persistence.volumeAttributesClassName, statefulSet: db/pg, template: data, value: volumeAttributesClassName }
`;

describe('a class in Helm values (a size source with value: volumeAttributesClassName)', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const pass = (): Promise<TargetRun> => applyPass(config, env);
  const context = 'sts-volume-gitops/validate (demo)';
  const claimClasses = (): Array<[unknown, unknown]> => [0, 1].map((i) => {
    const pvc = kube.store.get(types.pvc, 'db', `data-pg-${i}`) as { spec?: { volumeAttributesClassName?: string }; status?: { currentVolumeAttributesClassName?: string } } | undefined;
    return [pvc?.spec?.volumeAttributesClassName, pvc?.status?.currentVolumeAttributesClassName];
  });

  before(async () => {
    ({ kube, github, config } = await startSandboxPair({
      name: 'class-sources', files: { 'apps/pg/values.yaml': pgValues('silver'), 'k8s/README.md': 'manifests live here\n' },
      tokenEnv: 'CLASS_SOURCES_TOKEN', env, allow: ['db'], targetLines: mappings,
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1, acceptedMutableParameterNames: ['iops'] } }],
        // The driver changes IOPS only: `platinum`, another volume type, is refused.
        volumeAttributesClasses: [['silver', { iops: '3000' }], ['gold', { iops: '6000' }], ['platinum', { type: 'io2' }]].map(([name, parameters]) => ({ name, storageClass: 'standard', parameters })),
        statefulSets: [rendered],
      },
    }));
    kube.tick(4);
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  let goldPr = 0;

  it('reads the mapped class and changes nothing while Git matches the cluster', async () => {
    const run = await pass();
    assert.deepEqual(run.report?.manifestErrors, []);
    const template = run.report?.statefulSets[0]?.templates[0];
    assert.deepEqual([run.report?.statefulSets[0]?.outcome, template?.desiredClass, template?.classLocation?.line], ['converged', 'silver', 5]);
  });

  it('gives a PR naming a class the cluster lacks a red check linking to the value\'s line, and one naming gold a green check', async () => {
    const bronze = await github.commitFiles({ branch: 'bronze', message: 'Cheaper disks', files: { 'apps/pg/values.yaml': pgValues('bronze') } });
    const bronzePr = await github.openPullRequest({ head: 'bronze', title: 'Bronze for pg' });
    const gold = await github.commitFiles({ branch: 'gold', message: 'Faster disks', files: { 'apps/pg/values.yaml': pgValues('gold') } });
    goldPr = await github.openPullRequest({ head: 'gold', title: 'Gold for pg' });
    await pass();
    const [red] = statusesOf(github, bronze, context);
    assert.equal(red?.state, 'failure');
    assert.match(red?.description ?? '', /VolumeAttributesClass bronze does not exist in the cluster/);
    // Both mappings are in the file; the annotation and the link are on the class's line (5), not the size's (4).
    assert.match(commentBodies(github, bronzePr)[0] ?? '', new RegExp(`\\[apps/pg/values\\.yaml:5\\]\\(https://github\\.com/acme/platform-gitops/blob/${bronze}/apps/pg/values\\.yaml#L5\\)`));
    assert.deepEqual(statusesOf(github, gold, context).map((s) => s.state), ['success']);
    assert.match(commentBodies(github, goldPr)[0] ?? '', /class silver → gold/);
  });

  it('merged, moves the rendered set\'s template and PVCs to the class, pods untouched', async () => {
    const pods = kube.store.list(types.pod, 'db').map((p) => p.metadata.uid).sort();
    const introducing = github.state.pulls.find((p) => p.number === goldPr)?.headSha;
    await github.mergePullRequest(goldPr);
    await passUntil(pass, kube, (run) => run.feedback?.progress.some((p) => p.statefulSet === 'db/pg' && p.state === 'success') ?? false);
    // The progress status lands on the commit that changed the class value.
    const statuses = github.state.statuses.filter((s) => s.context === 'sts-volume-gitops/demo/db/pg');
    assert.ok(statuses.length > 0 && statuses.every((s) => s.sha === introducing), `on the commit that changed the value: ${JSON.stringify(statuses)}`);
    const live = kube.store.get(types.sts, 'db', 'pg') as unknown as { spec: { volumeClaimTemplates: Array<{ spec: { volumeAttributesClassName?: string } }> } };
    assert.equal(live.spec.volumeClaimTemplates[0]?.spec.volumeAttributesClassName, 'gold');
    assert.deepEqual(claimClasses(), [['gold', 'gold'], ['gold', 'gold']]);
    assert.deepEqual(kube.store.list(types.pod, 'db').map((p) => p.metadata.uid).sort(), pods);
  });

  it('an infeasible class gets a recovery PR that changes only the value\'s bytes in the values file', async () => {
    await github.commitFiles({ branch: 'main', message: 'Fastest disks', files: { 'apps/pg/values.yaml': pgValues('platinum') } });
    const run = await passUntil(pass, kube, (r) => (r.recovery?.outcomes.length ?? 0) > 0);
    const outcome = run.recovery?.outcomes[0];
    assert.equal(outcome?.action, 'opened', outcome?.reason);
    assert.deepEqual([outcome?.key, outcome?.kind], ['db/pg/data', 'class-recovery']);
    const pr = github.state.pulls.find((p) => p.state === 'open' && p.head === 'sts-volume-gitops/recover/demo/db/pg/data.class');
    assert.equal(pr?.title, 'Recover db/pg data: VolumeAttributesClass platinum → gold (modification infeasible)');
    const main = await github.readFile('main', 'apps/pg/values.yaml');
    assert.equal(await github.readFile(pr?.head ?? '', 'apps/pg/values.yaml'), main?.replace('volumeAttributesClassName: platinum  # performance', 'volumeAttributesClassName: gold  # performance'));
    assert.match(outcome?.diff ?? '', /^-\s+volumeAttributesClassName: platinum {2}# performance tier\n\+\s+volumeAttributesClassName: gold {2}# performance tier$/m);
  });
});
