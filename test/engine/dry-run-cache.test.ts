// Dry-run answers are reused across passes over the same cluster connection while the PVC, the namespace's quotas and
// the StorageClasses are unchanged, and asked again as soon as one of them changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { readDesiredState } from '../../functions/domain/manifests.ts';
import { planWithDryRuns } from '../../functions/engine/run-pass.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

function statefulSet(storage: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', namespace: 'db' },
    spec: {
      replicas: 3, serviceName: 'pg', podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'pg' } },
      template: { metadata: { labels: { app: 'pg' } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } }],
    },
  };
}

describe('dry-run answers across passes', () => {
  let kube: KubeSandbox;
  const target = { name: 'cache', globs: ['**/*.yaml'], defaultNamespace: 'db', allowedNamespaces: ['db'], stateNamespace: 'sts-volume-gitops' };
  const manifests = (storage: string) => readDesiredState(new Map([['db/pg.yaml', stringify(statefulSet(storage))]]), { globs: ['**/*.yaml'], defaultNamespace: 'db' });
  const desired = (storage: string) => ({ statefulSets: manifests(storage).statefulSets, sizeValues: [] });
  const dryRuns = (): number => kube.requestLog.countsByVerbAndResource()['patch persistentvolumeclaims (dryRun)'] ?? 0;

  before(async () => {
    kube = await startKubeSandbox({
      seed: {
        namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
        resourceQuotas: [{ name: 'storage', namespace: 'db', hard: { 'requests.storage': '100Gi' } }],
        statefulSets: [statefulSet('10Gi')],
      },
    });
  });
  after(() => kube.close());

  it('asks once per PVC and size, again after the quota changed, and never for another connection', async () => {
    const cluster = new KubeCluster(kube.kubeConfig());
    kube.requestLog.reset();
    await planWithDryRuns({ cluster, target }, desired('20Gi'));
    assert.equal(dryRuns(), 3, 'the first pass dry-runs every PVC');
    await planWithDryRuns({ cluster, target }, desired('20Gi'));
    assert.equal(dryRuns(), 3, 'nothing changed: the answers are reused');
    await planWithDryRuns({ cluster, target }, desired('30Gi'));
    assert.equal(dryRuns(), 6, 'another size is another question');

    // A changed quota may answer otherwise: its new resourceVersion makes the old answers stale.
    const quotaType = mustResourceType('v1', 'ResourceQuota');
    const quota = kube.store.get(quotaType, 'db', 'storage');
    assert.ok(quota);
    kube.store.replace(quotaType, { ...quota, spec: { hard: { 'requests.storage': '200Gi' } } });
    const { plans } = await planWithDryRuns({ cluster, target }, desired('30Gi'));
    assert.equal(dryRuns(), 9);
    assert.equal(plans[0]?.templates[0]?.action, 'resize');

    await planWithDryRuns({ cluster: new KubeCluster(kube.kubeConfig()), target }, desired('30Gi'));
    assert.equal(dryRuns(), 12, 'answers belong to one cluster connection');
  });
});
