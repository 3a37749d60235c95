import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecreationRecord } from '../../../functions/domain/live-state.ts';
import { buildRecreatedStatefulSet, nextRecreationStep } from '../../../functions/engine/records/recreate-statefulset.ts';
import { recordMismatch } from '../../../functions/engine/records/match-live.ts';
import { liveSet } from '../builders.ts';

const record: RecreationRecord = { namespace: 'db', recordNamespace: 'default', recordName: 'r', ownerTarget: 'test', statefulSetName: 'pg', oldUid: 'uid-1', target: {}, updateRevision: 'pg-rev1' };

describe('nextRecreationStep', () => {
  it('deletes the old object while it still exists with the recorded UID', () => {
    assert.equal(nextRecreationStep(record, liveSet({ uid: 'uid-1' })), 'delete-old');
  });
  it('waits while the old object is being deleted (orphan finalizer pending)', () => {
    assert.equal(nextRecreationStep(record, liveSet({ uid: 'uid-1', deleting: true })), 'wait-for-deletion');
  });
  it('creates from the record once the old object is gone', () => {
    assert.equal(nextRecreationStep(record, undefined), 'create-from-record');
  });
  it('drops the record when an object with another UID exists (recreation already done)', () => {
    assert.equal(nextRecreationStep(record, liveSet({ uid: 'uid-2' })), 'drop-record');
  });
});

describe('buildRecreatedStatefulSet', () => {
  const live = {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: {
      name: 'pg', namespace: 'db', uid: 'uid-1', resourceVersion: '42', generation: 3, creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [{ manager: 'kubectl' }], labels: { app: 'pg' }, finalizers: ['orphan', 'example.com/keep'],
      deletionTimestamp: '2026-01-02T00:00:00Z',
    },
    spec: {
      replicas: 3,
      template: { metadata: { labels: { app: 'pg' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } },
      volumeClaimTemplates: [
        { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '10Gi' } } } },
        { metadata: { name: 'wal' }, spec: { resources: { requests: { storage: '1Gi' } } } },
      ],
    },
    status: { replicas: 3, updateRevision: 'pg-abc' },
  };
  const target = buildRecreatedStatefulSet(live, new Map([['data', '20Gi']]));

  it('strips uid, resourceVersion, generation, timestamps, managedFields, status and the orphan finalizer', () => {
    assert.deepEqual(target.metadata, { name: 'pg', namespace: 'db', labels: { app: 'pg' }, finalizers: ['example.com/keep'] });
    assert.equal(target.status, undefined);
  });
  it('changes only the named template storage and leaves the pod template exactly as it was', () => {
    const spec = target.spec as typeof live.spec;
    assert.equal(spec.volumeClaimTemplates[0]?.spec.resources.requests.storage, '20Gi');
    assert.equal(spec.volumeClaimTemplates[1]?.spec.resources.requests.storage, '1Gi');
    assert.deepEqual(spec.template, live.spec.template);
  });
  it('does not modify the live object it was given', () => {
    assert.equal(live.spec.volumeClaimTemplates[0]?.spec.resources.requests.storage, '10Gi');
    assert.equal(live.metadata.uid, 'uid-1');
  });
});

describe('recordMismatch', () => {
  const raw = {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', namespace: 'db', labels: { app: 'pg' } },
    spec: {
      replicas: 2,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '10Gi' } } } }],
    },
  };
  const withTarget = (target: Record<string, unknown>): RecreationRecord => ({ ...record, target });

  it('matches the live object it was made from: only the storage values differ', () => {
    assert.equal(recordMismatch(withTarget(buildRecreatedStatefulSet(raw, new Map([['data', '20Gi']]))), liveSet({ raw })), undefined);
  });
  it('does not match when a template differs in anything but its storage (another class, other access modes)', () => {
    const target = buildRecreatedStatefulSet(raw, new Map([['data', '20Gi']]));
    const template = (target.spec as typeof raw.spec).volumeClaimTemplates[0];
    assert.ok(template);
    template.spec.storageClassName = 'fast';
    assert.equal(recordMismatch(withTarget(target), liveSet({ raw })), 'its volumeClaimTemplates changed since the record was written (beyond the sizes and classes it sets)');
  });
  it('does not match once an ownerReference was added: an adopted set is its operator\'s, and says who owns it', () => {
    const target = buildRecreatedStatefulSet(raw, new Map([['data', '20Gi']]));
    const owner = { apiVersion: 'monitoring.coreos.com/v1', kind: 'Alertmanager', name: 'main', uid: 'o-1', controller: true };
    const adopted = { ...raw, metadata: { ...raw.metadata, ownerReferences: [owner] } };
    assert.equal(recordMismatch(withTarget(target), liveSet({ raw: adopted, controllerOwner: owner })),
      'its ownerReferences changed since the record was written: it is now controlled by Alertmanager main (monitoring.coreos.com/v1)');
    const dependent = { ...raw, metadata: { ...raw.metadata, ownerReferences: [{ ...owner, controller: false }] } };
    assert.equal(recordMismatch(withTarget(target), liveSet({ raw: dependent })), 'its ownerReferences changed since the record was written');
    assert.equal(recordMismatch(withTarget(target), liveSet({ raw: { ...raw, spec: { ...raw.spec, replicas: 3 } } })), 'its spec changed since the record was written');
  });
});
