// The snapshot's LISTs through the client-node adapter, page by page (`limit` + `continue`) as the sandbox serves them
// like kube-apiserver: every object arrives once, whatever the page size.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

function statefulSet(name: string, replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace: 'db' },
    spec: {
      replicas, serviceName: name, podManagementPolicy: 'Parallel', selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  };
}

describe('KubeCluster snapshot paging', () => {
  let kube: KubeSandbox;

  before(async () => {
    kube = await startKubeSandbox({
      seed: {
        namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
        statefulSets: [statefulSet('a', 3), statefulSet('b', 2), statefulSet('c', 2)],
      },
    });
  });
  after(() => kube.close());

  it('reads every object once over pages of two, with one LIST per page', async () => {
    const cluster = new KubeCluster(kube.kubeConfig(), 4, 2);
    kube.requestLog.reset();
    const snapshot = await cluster.readSnapshot(['db']);
    const ns = snapshot.namespaces.get('db');
    assert.deepEqual(ns?.statefulSets.map((s) => s.name).sort(), ['a', 'b', 'c']);
    assert.equal(ns?.pvcs.length, 7);
    assert.equal(new Set(ns?.pvcs.map((p) => p.name)).size, 7);
    assert.equal(ns?.pods.length, 7);
    const counts = kube.requestLog.countsByVerbAndResource();
    assert.equal(counts['list statefulsets'], 2, 'three StatefulSets: pages of 2 and 1');
    assert.equal(counts['list persistentvolumeclaims'], 4, 'seven PVCs: pages of 2, 2, 2, 1');
    assert.equal(counts['list pods'], 4);
  });

  it('reads a namespace in one LIST per kind when it fits a page', async () => {
    const cluster = new KubeCluster(kube.kubeConfig());
    kube.requestLog.reset();
    const snapshot = await cluster.readSnapshot(['db']);
    assert.equal(snapshot.namespaces.get('db')?.pvcs.length, 7);
    assert.equal(kube.requestLog.countsByVerbAndResource()['list persistentvolumeclaims'], 1);
  });
});
