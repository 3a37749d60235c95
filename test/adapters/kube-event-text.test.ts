// The Events the tool writes quote outside text (a refused record's fields, the API server's refusal of a patch), and
// `kubectl describe` and `kubectl get events` print them to a terminal as they are: the adapter writes them printable
// (issue 34 item 2).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

describe('KubeCluster Events', () => {
  let kube: KubeSandbox;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'] } });
  });
  after(() => kube.close());

  it('writes a message with control characters escaped', async () => {
    const cluster = new KubeCluster(kube.kubeConfig());
    await cluster.recordEvent({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'db', name: 'forged', uid: '' }, 'Warning', 'RefusedRecreationRecord',
      'record names StatefulSet pg\x1b]52;c;aGk=\x07\x1b[1A\x1b[2K\r\u202e');
    const [event] = kube.store.list(mustResourceType('v1', 'Event'), 'db') as Array<{ message?: string }>;
    assert.equal(event?.message, 'record names StatefulSet pg\\x1b]52;c;aGk=\\x07\\x1b[1A\\x1b[2K\\r\\u202e');
  });
});
