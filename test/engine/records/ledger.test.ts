// Where a pass looks for recreation records, what it leaves on the Lease about them, and their names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecreationRecord } from '../../../functions/domain/live-state.ts';
import type { LeaseState, RecordsMark } from '../../../functions/engine/ports.ts';
import { RecordLedger, recordScanNeeded } from '../../../functions/engine/records/ledger.ts';
import { recreationRecordName } from '../../../functions/engine/records/recreate-statefulset.ts';

const lease = (holder: string | undefined, mark: RecordsMark | undefined): LeaseState => ({
  holder, renewTime: holder ? new Date().toISOString() : undefined, durationSeconds: 300, resourceVersion: '7', recreationRecords: mark,
});

const record = (recordNamespace: string, name: string, ownerTarget: string | undefined): RecreationRecord => ({
  namespace: 'db', recordNamespace, recordName: `r-${name}`, ownerTarget, statefulSetName: name, oldUid: 'u', target: {}, updateRevision: undefined,
});

describe('recordScanNeeded', () => {
  it('believes only a released Lease saying none; looks in the old location only when the Lease has no mark', () => {
    assert.deepEqual(recordScanNeeded(lease(undefined, 'none')), { leaseNamespace: false, legacy: false });
    assert.deepEqual(recordScanNeeded(lease(undefined, 'outstanding')), { leaseNamespace: true, legacy: false });
    assert.deepEqual(recordScanNeeded(lease(undefined, undefined)), { leaseNamespace: true, legacy: true }, 'an older version\'s Lease');
    assert.deepEqual(recordScanNeeded(undefined), { leaseNamespace: true, legacy: true }, 'no Lease');
    assert.deepEqual(recordScanNeeded(lease('dead-pass', 'none')), { leaseNamespace: true, legacy: false }, 'a holder that died never released it');
    assert.deepEqual(recordScanNeeded(lease('live-pass', undefined)), { leaseNamespace: true, legacy: true });
  });
});

describe('RecordLedger', () => {
  it('says none only when every location was looked at and every record it knows of was deleted', () => {
    const ledger = new RecordLedger({ leaseNamespace: true, legacy: true });
    assert.equal(ledger.finalMark(), undefined, 'nothing looked at yet');
    ledger.listed([record('default', 'pg', 't')], 'leaseNamespace');
    assert.equal(ledger.finalMark(), undefined, 'the old location is still unknown');
    ledger.listed([record('db', 'old', undefined)], 'legacy');
    assert.equal(ledger.finalMark(), undefined, 'an older version\'s record remains');
    assert.equal(ledger.holdingMark(), undefined);
    ledger.deleted('db', 'r-old');
    assert.equal(ledger.finalMark(), 'outstanding');
    assert.equal(ledger.holdingMark(), 'outstanding');
    ledger.deleted('default', 'r-pg');
    assert.equal(ledger.finalMark(), 'none');
  });

  it('keeps a record it began to save as outstanding until its delete is confirmed', () => {
    const ledger = new RecordLedger({ leaseNamespace: false, legacy: false });
    assert.equal(ledger.finalMark(), 'none', 'believed none at the start');
    ledger.saving(record('default', 'pg', 't'));
    assert.equal(ledger.finalMark(), 'outstanding');
    ledger.deleted('default', 'r-pg');
    assert.equal(ledger.finalMark(), 'none');
  });
});

describe('recreationRecordName', () => {
  const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

  it('never gives two StatefulSets of different namespaces (or targets) one name', () => {
    const names = [
      recreationRecordName('prod', 'db', 'pg'), recreationRecordName('prod', 'cache', 'pg'),
      recreationRecordName('prod', 'a', 'b-c'), recreationRecordName('prod', 'a-b', 'c'), recreationRecordName('prod', 'a', 'b.c'),
      recreationRecordName('staging', 'db', 'pg'),
    ];
    assert.equal(new Set(names).size, names.length);
    assert.equal(names[0], 'sts-volume-gitops-recreate.prod.db.pg');
  });

  it('stays a valid ConfigMap name of at most 253 characters for the longest names, still distinct', () => {
    const namespace = 'n'.repeat(63);
    const long = `${'s'.repeat(180)}-a`;
    const first = recreationRecordName('t'.repeat(40), namespace, long);
    const second = recreationRecordName('t'.repeat(40), namespace, `${'s'.repeat(180)}-b`);
    const cutAtDash = recreationRecordName('t'.repeat(40), namespace, `${'s'.repeat(120)}${'-'.repeat(60)}x`);
    for (const name of [first, second, cutAtDash]) {
      assert.ok(name.length <= 253, `${name.length} characters`);
      assert.match(name, dnsSubdomain);
    }
    assert.notEqual(first, second);
  });

});
