// Where a pass looks for recreation records, what it leaves on the Lease about them, and their names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecreationRecord } from '../../../functions/domain/live-state.ts';
import type { LeaseState, RecordsMark } from '../../../functions/engine/ports.ts';
import { RecordKey } from '../../../functions/engine/records/authenticity.ts';
import { legacyScanNeeded, passLedger, RecordLedger } from '../../../functions/engine/records/ledger.ts';
import { claimsToBeRecordOf, recreationRecordName } from '../../../functions/engine/records/names.ts';
import { readOutstanding, signOutstanding } from '../../../functions/engine/records/outstanding.ts';

const lease = (holder: string | undefined, mark: RecordsMark | undefined): LeaseState => ({
  holder, renewTime: holder ? new Date().toISOString() : undefined, durationSeconds: 300, resourceVersion: '7', recreationRecords: mark, outstandingRecords: undefined,
});

const record = (recordNamespace: string, name: string, mac: string | undefined): RecreationRecord => ({
  namespace: 'db', recordNamespace, recordName: `r-${name}`, ownerTarget: 't', statefulSetName: name, oldUid: 'u', target: {}, updateRevision: undefined,
  ...(mac !== undefined ? { mac } : {}),
});

const key = RecordKey.fromText('k'.repeat(32), 'the test');
const place = { leaseNamespace: 'sts-volume-gitops', leaseName: 'sts-volume-gitops-t', target: 't' };
const sign = (ids: Iterable<string>): string | undefined => signOutstanding(ids, key, place);
const read = (text: string | undefined): ReadonlySet<string> => readOutstanding(text, key, place).ids;
const idsOf = (ledger: RecordLedger): string[] => [...ledger.outstandingIds()].sort();

describe('legacyScanNeeded', () => {
  it('lists the old locations only while the Lease carries no mark, whoever holds it', () => {
    assert.equal(legacyScanNeeded(lease(undefined, 'none')), false);
    assert.equal(legacyScanNeeded(lease(undefined, 'outstanding')), false);
    assert.equal(legacyScanNeeded(lease('dead-pass', 'none')), false);
    assert.equal(legacyScanNeeded(lease(undefined, undefined)), true, 'an older version\'s Lease');
    assert.equal(legacyScanNeeded(undefined), true, 'no Lease');
  });
});

describe('RecordLedger', () => {
  it('keeps in progress only what the Lease listed and the state namespace still holds, authentic', () => {
    const ledger = new RecordLedger({ legacy: false, outstanding: new Set(['a', 'b', 'c']), sign, read });
    assert.deepEqual(idsOf(ledger), ['a', 'b', 'c'], 'before the LIST, everything the Lease listed may exist');
    // b's record is there; `z` (a record the Lease never listed: a copy put back, a forgery) counts for nothing.
    ledger.listedStateNamespace([record('s', 'pg', 'b'), record('s', 'copy', 'z')]);
    assert.deepEqual(idsOf(ledger), ['b']);
    assert.deepEqual(ledger.marks(true), { records: 'outstanding', outstanding: sign(['b']) });
    ledger.deleted('s', 'r-pg');
    assert.deepEqual(ledger.marks(true), { records: 'none', outstanding: undefined });
  });

  it('lists a record from the moment its save begins, and only its last seal once a rewrite is confirmed', () => {
    const ledger = new RecordLedger({ legacy: false, outstanding: new Set(), sign, read });
    ledger.listedStateNamespace([]);
    assert.deepEqual(ledger.marks(true), { records: 'none', outstanding: undefined });
    ledger.saving(record('s', 'pg', 'first'));
    assert.deepEqual(idsOf(ledger), ['first']);
    ledger.saved(record('s', 'pg', 'first'));
    ledger.saving(record('s', 'pg', 'second'));
    assert.deepEqual(idsOf(ledger), ['first', 'second'], 'a rewrite whose answer is lost: either seal may be stored');
    ledger.saved(record('s', 'pg', 'second'));
    assert.deepEqual(idsOf(ledger), ['second'], 'the first seal is no longer stored: a copy of it is refused');
    assert.equal(ledger.marks(false).records, 'outstanding', 'while held, never none');
    ledger.deleted('s', 'r-pg');
    assert.deepEqual(idsOf(ledger), []);
    assert.equal(ledger.marks(false).records, 'outstanding');
    assert.equal(ledger.marks(true).records, 'none');
  });

  it('forgets what another pass struck from the mark (it finished those), wherever the ledger kept them', () => {
    const ledger = new RecordLedger({ legacy: false, outstanding: new Set(['a', 'b']), sign, read });
    ledger.saving(record('s', 'pg', 'c'));
    ledger.struck(['a', 'c']);
    assert.deepEqual(idsOf(ledger), ['b'], 'before the LIST too');
    ledger.listedStateNamespace([record('s', 'redis', 'b')]);
    ledger.struck(['b']);
    assert.deepEqual(ledger.marks(true), { records: 'none', outstanding: undefined });
    assert.deepEqual([...ledger.readMark(sign(['x', 'y']))].sort(), ['x', 'y']);
    assert.deepEqual(ledger.readMark(signOutstanding(['x'], RecordKey.fromText('o'.repeat(32), 'the test'), place)), new Set(), 'only a mark that verifies');
  });

  it('leaves no mark for the old locations until they were listed clean, and keeps it off while a record is there', () => {
    const ledger = new RecordLedger({ legacy: true, outstanding: new Set(), sign, read });
    ledger.listedStateNamespace([]);
    assert.equal(ledger.marks(true).records, undefined, 'not listed yet');
    ledger.listedLegacy([record('db', 'old', undefined)]);
    assert.equal(ledger.marks(true).records, undefined, 'an older version\'s record remains');
    ledger.deleted('db', 'r-old');
    assert.equal(ledger.marks(true).records, 'none');
  });
});

describe('passLedger', () => {
  it('carries the Lease\'s mark over unread when the pass has no key, so a missing key does not erase what is in progress', () => {
    const text = signOutstanding(['a'], key, place);
    const seen = { ...lease(undefined, 'outstanding'), outstandingRecords: text };
    const keyless = passLedger(seen, undefined, place, readOutstanding(text, undefined, place), false);
    keyless.listedStateNamespace([]);
    assert.deepEqual(keyless.marks(true), { records: 'outstanding', outstanding: text });
    const keyed = passLedger(seen, key, place, readOutstanding(text, key, place), false);
    keyed.listedStateNamespace([]);
    assert.deepEqual(keyed.marks(true), { records: 'none', outstanding: undefined }, 'with the key, a record no longer there is finished');
  });
});

describe('the Lease\'s list of outstanding recreations', () => {
  it('is believed only with this key, at this Lease of this target, unchanged', () => {
    const text = signOutstanding(['b', 'a'], key, place);
    assert.deepEqual([...readOutstanding(text, key, place).ids].sort(), ['a', 'b']);
    assert.equal(signOutstanding(['a', 'b'], key, place), text, 'the same ids always give the same text');
    assert.equal(signOutstanding([], key, place), undefined, 'none: no mark');
    const other = RecordKey.fromText('o'.repeat(32), 'the test');
    const refused = [
      readOutstanding(text, other, place), readOutstanding(text, key, { ...place, target: 'u' }),
      readOutstanding(text, key, { ...place, leaseName: 'sts-volume-gitops-u' }), readOutstanding(text, key, { ...place, leaseNamespace: 'ops' }),
      readOutstanding(JSON.stringify({ ...JSON.parse(text ?? '{}') as object, records: ['a', 'b', 'c'] }), key, place),
    ];
    for (const outcome of refused) {
      assert.equal(outcome.ids.size, 0);
      assert.match(outcome.problem ?? '', /its MAC does not verify/);
    }
    assert.match(readOutstanding('outstanding', key, place).problem ?? '', /not the JSON this tool writes/);
    assert.match(readOutstanding(text, undefined, place).problem ?? '', /no record key/);
    assert.deepEqual(readOutstanding(undefined, key, place), { ids: new Set() });
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

describe('claimsToBeRecordOf', () => {
  it('takes what is labelled a record of the target (or of none), and what is named like one whatever its labels', () => {
    const named = recreationRecordName('prod', 'db', 'pg');
    assert.ok(claimsToBeRecordOf('prod', { name: named, isRecord: true, target: 'prod' }));
    assert.ok(claimsToBeRecordOf('prod', { name: named, isRecord: false, target: undefined }), 'the label left out');
    assert.ok(claimsToBeRecordOf('prod', { name: named, isRecord: false, target: 'staging' }), 'another target\'s label on our name');
    assert.ok(claimsToBeRecordOf('prod', { name: 'anything', isRecord: true, target: undefined }), 'a record of no target');
    assert.equal(claimsToBeRecordOf('prod', { name: recreationRecordName('staging', 'db', 'pg'), isRecord: true, target: 'staging' }), false, 'another target\'s');
    assert.equal(claimsToBeRecordOf('prod', { name: 'kube-root-ca.crt', isRecord: false, target: undefined }), false);
    assert.equal(claimsToBeRecordOf('prod', { name: recreationRecordName('prod-eu', 'db', 'pg'), isRecord: false, target: undefined }), false, 'a target whose name starts like ours');
  });
});
