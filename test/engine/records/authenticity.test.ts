// The pure checks a recreation record passes before any use: its MAC over everything a pass acts on, with this
// deployment's key, and claims that agree with each other and with the target's place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecreationRecord } from '../../../functions/domain/live-state.ts';
import { maxRecordAgeMs, RecordKey, recordRefusal, sealRecord } from '../../../functions/engine/records/authenticity.ts';
import { recreationRecordName } from '../../../functions/engine/records/names.ts';

const key = RecordKey.fromText('k'.repeat(32), 'the test');
const now = new Date('2026-11-25T12:00:00Z');
const expected = { key, target: 'prod', stateNamespace: 'sts-volume-gitops', now };

function record(overrides: Partial<RecreationRecord> = {}): RecreationRecord {
  return {
    namespace: 'db', recordNamespace: 'sts-volume-gitops', recordName: recreationRecordName('prod', 'db', 'pg'), ownerTarget: 'prod',
    statefulSetName: 'pg', oldUid: 'uid-1', updateRevision: 'pg-7d9',
    target: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', namespace: 'db' }, spec: { replicas: 2 } },
    ...overrides,
  };
}

describe('recordRefusal', () => {
  it('accepts a record this deployment sealed, and one whose object came from a LIST (no apiVersion and kind)', () => {
    assert.equal(recordRefusal(sealRecord(record(), key, now), expected), undefined);
    assert.equal(recordRefusal(sealRecord(record({ target: { metadata: { name: 'pg', namespace: 'db' } } }), key, now), expected), undefined);
    assert.equal(recordRefusal(sealRecord(record({ updateRevision: undefined }), key, now), expected), undefined);
  });

  it('refuses a record without a MAC, with another key\'s, or without a key to check it', () => {
    assert.match(recordRefusal(record(), expected) ?? '', /carries no MAC/);
    const other = RecordKey.fromText('o'.repeat(32), 'the test');
    assert.match(recordRefusal(sealRecord(record(), other, now), expected) ?? '', /MAC does not verify/);
    assert.match(recordRefusal(sealRecord(record(), key, now), { ...expected, key: undefined }) ?? '', /no record key is configured/);
    assert.match(recordRefusal({ ...record(), mac: 'not base64 at all!' }, expected) ?? '', /MAC does not verify/);
  });

  it('refuses a sealed record once any field a pass reads was changed', () => {
    const sealed = sealRecord(record(), key, now);
    const changes: Array<Partial<RecreationRecord>> = [
      { namespace: 'kube-system' }, { statefulSetName: 'other' }, { oldUid: 'uid-2' }, { updateRevision: 'pg-000' },
      { recordName: 'elsewhere' }, { recordNamespace: 'db' }, { ownerTarget: 'dev' }, { sealedAt: new Date().toISOString() },
      { target: { ...sealed.target, spec: { replicas: 2, template: { spec: { hostPID: true } } } } },
    ];
    for (const change of changes) {
      assert.match(recordRefusal({ ...sealed, ...change }, expected) ?? '', /MAC does not verify/, JSON.stringify(change));
    }
  });

  it('refuses an authentic record whose claims disagree with the target or with each other', () => {
    const refusal = (overrides: Partial<RecreationRecord>, where = expected): string | undefined => recordRefusal(sealRecord(record(overrides), key, now), where);
    assert.match(refusal({}, { ...expected, target: 'dev' }) ?? '', /belongs to target prod/);
    assert.match(refusal({}, { ...expected, stateNamespace: 'ops' }) ?? '', /belongs to target prod in namespace sts-volume-gitops, not to target prod in ops/);
    assert.match(refusal({ recordName: 'sts-volume-gitops-recreate.prod.db.other' }) ?? '', /its name is not the one/);
    assert.match(refusal({ target: { metadata: { name: 'pwn', namespace: 'kube-system' } } }) ?? '', /not db\/pg/);
    assert.match(refusal({ target: { kind: 'DaemonSet', metadata: { name: 'pg', namespace: 'db' } } }) ?? '', /not an apps\/v1 StatefulSet/);
    assert.match(refusal({ target: { metadata: { name: 'pg', namespace: 'db', uid: 'x' } } }) ?? '', /uid or resourceVersion/);
    assert.match(refusal({ unreadable: 'data.target is not JSON' }) ?? '', /cannot be read \(data.target is not JSON\)/);
  });
});

describe('a record\'s age', () => {
  it('refuses a genuine record sealed longer ago than a record lives, so a copy cannot be replayed later', () => {
    const old = sealRecord(record(), key, new Date(now.getTime() - maxRecordAgeMs - 1000));
    assert.match(recordRefusal(old, expected) ?? '', /sealed at .*, more than 7 days ago/);
    const recent = sealRecord(record(), key, new Date(now.getTime() - maxRecordAgeMs + 60_000));
    assert.equal(recordRefusal(recent, expected), undefined);
  });
});

describe('RecordKey', () => {
  it('refuses a short key, naming where it came from and never the value', () => {
    assert.throws(() => RecordKey.fromText('short-secret-value', 'environment variable K'),
      (error: Error) => /environment variable K is shorter than 32 characters/.test(error.message) && !error.message.includes('short-secret-value'));
  });

  it('never prints itself', () => {
    assert.equal(JSON.stringify({ key }), '{"key":"(record key)"}');
    assert.equal(String(key), '(record key)');
    assert.doesNotMatch(JSON.stringify(sealRecord(record(), key, now)), /kkkk/);
  });
});
