// The snapshot is mapped from the JSON the server sent, not from client-node's typed copy: what a server's list
// answer may look like at the edges (an empty list as `items: null`, a reply that is no list, fields and timestamps
// as strings) reaches the engine correctly or as a clear ClusterError. A bare HTTP server answers, so each reply is
// exactly the bytes written here.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { ClusterError } from '../../functions/engine/ports.ts';

type Replies = Record<string, unknown>;

/** `GET /version` as the recorded kube-apiserver v1.34.9 answered it (the snapshot reads it with the lists). */
const serverVersion = {
  major: '1', minor: '34', emulationMajor: '1', emulationMinor: '34', minCompatibilityMajor: '1', minCompatibilityMinor: '33',
  gitVersion: 'v1.34.9', gitCommit: 'ba6535cbb8719c3ba6c3923f2725ba050c87faab', gitTreeState: 'clean',
  buildDate: '2026-11-25T11:52:05Z', goVersion: 'go1.24.4', compiler: 'gc', platform: 'linux/amd64',
};

function kubeConfigFor(server: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }], users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x',
  });
  return config;
}

const pvc = {
  apiVersion: 'v1', kind: 'PersistentVolumeClaim',
  metadata: { name: 'data-db-0', namespace: 'db', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-11-20T10:00:00Z' },
  spec: { storageClassName: 'standard', resources: { requests: { storage: '20Gi' } } },
  status: {
    phase: 'Bound', capacity: { storage: '10Gi' }, allocatedResources: { storage: '20Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
    conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: '2026-11-20T10:01:02Z' }],
  },
};

describe('snapshot lists read from the wire JSON', () => {
  let server: Server;
  let replies: Replies;
  let url = '';

  before(async () => {
    server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const reply = path === '/version' ? serverVersion
        : path.endsWith('/statefulsets') || path.endsWith('/storageclasses') || path.endsWith('/resourcequotas')
          ? { kind: 'List', metadata: {}, items: [] }
          : replies[path.split('/').pop() ?? ''];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('maps quantities, statuses, conditions and timestamps from the strings the server sent', async () => {
    replies = {
      persistentvolumeclaims: { kind: 'PersistentVolumeClaimList', metadata: {}, items: [pvc] },
      pods: { kind: 'PodList', metadata: {}, items: [{ metadata: { name: 'db-0', namespace: 'db', labels: { 'controller-revision-hash': 'db-abc' }, deletionTimestamp: '2026-11-20T10:05:00Z' }, status: { phase: 'Running' } }] },
    };
    const snapshot = await new KubeCluster(kubeConfigFor(url)).readSnapshot(['db']);
    const ns = snapshot.namespaces.get('db');
    const [claim] = ns?.pvcs ?? [];
    assert.equal(claim?.request?.text, '20Gi');
    assert.equal(claim?.capacity?.text, '10Gi');
    assert.equal(claim?.allocated?.text, '20Gi');
    assert.equal(claim?.resizeStatus, 'ControllerResizeInProgress');
    assert.deepEqual(claim?.conditions, [{ type: 'Resizing', status: 'True', reason: undefined, message: undefined, lastTransitionTime: '2026-11-20T10:01:02.000Z' }]);
    assert.equal(claim?.deleting, false);
    assert.deepEqual(ns?.pods, [{ namespace: 'db', name: 'db-0', phase: 'Running', deleting: true, revision: 'db-abc' }]);
  });

  it('reads an empty list sent as `items: null` as empty', async () => {
    replies = { persistentvolumeclaims: { kind: 'PersistentVolumeClaimList', metadata: {}, items: null }, pods: { kind: 'PodList', metadata: {}, items: [] } };
    const snapshot = await new KubeCluster(kubeConfigFor(url)).readSnapshot(['db']);
    assert.deepEqual(snapshot.namespaces.get('db')?.pvcs, []);
  });

  it('refuses a reply that is not a list, rather than reading it as an empty namespace', async () => {
    replies = { persistentvolumeclaims: pvc, pods: { kind: 'PodList', metadata: {}, items: [] } };
    await assert.rejects(new KubeCluster(kubeConfigFor(url)).readSnapshot(['db']), (error: unknown) => {
      assert.ok(error instanceof ClusterError);
      assert.match(error.message, /answered a list without items/);
      return true;
    });
  });
});
