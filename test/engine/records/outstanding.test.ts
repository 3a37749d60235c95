// What an authentic record must also be before a pass acts on it: a recreation the Lease lists as in progress, for a
// StatefulSet Git still has at the branch head.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecreationRecord } from '../../../functions/domain/live-state.ts';
import { readTargetDesired } from '../../../functions/engine/desired/desired-input.ts';
import { desiredStatefulSetKeys, standingRefusal, type RecordStanding } from '../../../functions/engine/records/outstanding.ts';

const record = (mac: string | undefined, name = 'pg'): RecreationRecord => ({
  namespace: 'db', recordNamespace: 'sts-volume-gitops', recordName: `r-${name}`, ownerTarget: 't', statefulSetName: name, oldUid: 'u',
  target: {}, updateRevision: undefined, ...(mac !== undefined ? { mac } : {}),
});

const standing = (ids: string[], desired: string[], problem?: string): RecordStanding => ({
  outstanding: { ids: new Set(ids), ...(problem !== undefined ? { problem } : {}) }, desired: new Set(desired),
  place: { leaseNamespace: 'sts-volume-gitops', leaseName: 'sts-volume-gitops-t', target: 't' }, leaseVersion: '7', commitSha: '0123456789abcdef0123',
});

describe('standingRefusal', () => {
  it('acts on a record the Lease lists, for a set Git has', () => {
    assert.equal(standingRefusal(record('m1'), standing(['m1'], ['db/pg'])), undefined);
  });

  it('refuses a record the Lease does not list: finished, or never begun, by this deployment', () => {
    assert.match(standingRefusal(record('m1'), standing(['m2'], ['db/pg'])) ?? '',
      /^not an outstanding recreation: the Lease sts-volume-gitops\/sts-volume-gitops-t does not list it among the recreations in progress\. A record is acted on once/);
    assert.match(standingRefusal(record(undefined), standing(['m1'], ['db/pg'])) ?? '', /^not an outstanding recreation/);
    assert.match(standingRefusal(record('m1'), standing([], ['db/pg'], 'its MAC does not verify')) ?? '',
      /list of recreations in progress is not believed \(its MAC does not verify\)/);
  });

  it('never brings back a set Git no longer has, whatever the Lease says', () => {
    assert.equal(standingRefusal(record('m1'), standing(['m1'], ['db/other'])),
      'StatefulSet db/pg is not in the desired state at the branch head (0123456789ab): a record never brings back a StatefulSet Git no longer has (removed from Git, or its manifest has an error)');
  });
});

describe('desiredStatefulSetKeys', () => {
  it('names the sets of the manifests and those the size sources map', () => {
    const manifest = (namespace: string, name: string): string => `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: ${name}, namespace: ${namespace} }
spec:
  serviceName: ${name}
  selector: { matchLabels: { app: ${name} } }
  template: { metadata: { labels: { app: ${name} } }, spec: { containers: [{ name: main, image: busybox }] } }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
`;
    const desired = readTargetDesired(new Map([
      ['k8s/pg.yaml', manifest('db', 'pg')], ['k8s/broken.yaml', 'kind: StatefulSet\nmetadata: [\n'],
      ['apps/prometheus/values.yaml', 'storage: 50Gi\n'],
    ]), {
      globs: ['k8s/**'], defaultNamespace: 'default',
      sizeSources: [{ file: 'apps/prometheus/values.yaml', path: 'storage', statefulSet: 'monitoring/prometheus', template: 'db' }],
    });
    assert.deepEqual([...desiredStatefulSetKeys(desired)].sort(), ['db/pg', 'monitoring/prometheus'], 'a manifest in error names nothing');
  });
});
