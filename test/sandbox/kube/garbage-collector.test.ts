// The sandbox's garbage collector as the real one: a dependent whose owner is gone is deleted, one whose owner's kind
// the server does not serve (a custom resource such as the Prometheus Operator's Prometheus) is left alone (the real
// collector cannot resolve the kind: restMappingError, retried, nothing deleted).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { pgStatefulSet } from './fixtures.ts';

describe('Kubernetes sandbox garbage collector', () => {
  let kube: KubeSandbox;
  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [] } });
  });
  after(() => kube.close());

  it('keeps a StatefulSet controlled by an unserved kind, and deletes one whose served owner is gone', async () => {
    const config = kube.kubeConfig();
    const apps = config.makeApiClient(AppsV1Api);
    const core = config.makeApiClient(CoreV1Api);
    const base = pgStatefulSet(1) as { metadata: Record<string, unknown> };
    await apps.createNamespacedStatefulSet({ namespace: 'db', body: { ...base, metadata: { ...base.metadata, name: 'prometheus-main', ownerReferences: [
      { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', name: 'main', uid: '6f1c2a0e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true },
    ] } } });
    const gone = await core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: 'owner' } } });
    await core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: 'dependent', ownerReferences: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: gone.metadata?.uid ?? '' },
    ] } } });
    await core.deleteNamespacedConfigMap({ namespace: 'db', name: 'owner' });
    kube.tick(3);
    const names = (await core.listNamespacedConfigMap({ namespace: 'db' })).items.map((c) => c.metadata?.name);
    assert.ok(!names.includes('dependent'), 'the dependent of a deleted owner is collected');
    const kept = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'prometheus-main' });
    assert.equal(kept.metadata?.ownerReferences?.[0]?.kind, 'Prometheus');
  });
});
