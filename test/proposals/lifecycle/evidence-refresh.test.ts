// When an open proposal's body is rewritten for its evidence alone: never when what it shows is the same (whatever the
// times), at once when what it rests on changed, else at most every evidenceRefreshHours; and the stamp that carries
// the time and the basis reads back what it writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evidenceRefresh, evidenceRefreshHours, type EvidenceStamp } from '../../../functions/proposals/lifecycle/evidence-refresh.ts';
import { readEvidenceStamp, readMarker, writeEvidenceStamp, writeMarker } from '../../../functions/proposals/lifecycle/marker.ts';
import { evidenceTime, footerSection } from '../../../functions/proposals/body/footer.ts';

const written = '2026-11-28T02:00:00.000Z';
const hoursLater = (hours: number): string => new Date(Date.parse(written) + hours * 3_600_000).toISOString();
const stamp: EvidenceStamp = { at: written, basis: 'data-pg-0 bytes' };
const shown = { title: 'Grow db/pg data: 10Gi → 15Gi (data-pg-0 85% full)', body: '- data-pg-0: 8.5Gi of 10Gi used (85%), full in 3 days', stamp };
const moved = { title: 'Grow db/pg data: 10Gi → 15Gi (data-pg-0 86% full)', body: '- data-pg-0: 8.6Gi of 10Gi used (86%), full in 2.8 days', basis: 'data-pg-0 bytes' };

describe('refreshing an open proposal\'s evidence', () => {
  const cases: Array<[string, Parameters<typeof evidenceRefresh>[0], ReturnType<typeof evidenceRefresh>['action']]> = [
    ['nothing displayed moved, a day later: nothing written', { shown, rendered: { title: shown.title, body: shown.body, basis: stamp.basis }, now: hoursLater(24) }, 'unchanged'],
    ['the numbers moved an hour after the last write: wait', { shown, rendered: moved, now: hoursLater(1) }, 'wait'],
    [`the numbers moved just before ${evidenceRefreshHours} hours: wait`, { shown, rendered: moved, now: hoursLater(evidenceRefreshHours - 0.01) }, 'wait'],
    [`the numbers moved, ${evidenceRefreshHours} hours later: refresh`, { shown, rendered: moved, now: hoursLater(evidenceRefreshHours) }, 'refresh'],
    ['the title alone moved, long after: refresh', { shown, rendered: { ...moved, body: shown.body }, now: hoursLater(30) }, 'refresh'],
    ['another replica crossed the threshold, a minute after the last write: refresh at once',
      { shown, rendered: { ...moved, basis: 'data-pg-0 bytes, data-pg-1 bytes' }, now: hoursLater(0.02) }, 'refresh'],
    ['the cause changed (full -> fills soon), at once', { shown, rendered: { ...moved, basis: 'data-pg-0 fills-soon' }, now: hoursLater(0.02) }, 'refresh'],
    ['a body an earlier version wrote (no stamp): refresh once', { shown: { ...shown, stamp: undefined }, rendered: moved, now: hoursLater(0.02) }, 'refresh'],
    ['a kind without a basis, moved within the hours: wait', { shown: { ...shown, stamp: { at: written } }, rendered: { ...moved, basis: undefined }, now: hoursLater(2) }, 'wait'],
  ];
  for (const [name, input, action] of cases) {
    it(name, () => assert.equal(evidenceRefresh(input).action, action));
  }

  it('says from when a waiting refresh is due', () => {
    assert.deepEqual(evidenceRefresh({ shown, rendered: moved, now: hoursLater(1) }), { action: 'wait', from: hoursLater(evidenceRefreshHours) });
  });
});

describe('the evidence stamp', () => {
  it('reads back what it writes, on the line after the marker, and leaves the marker\'s values alone', () => {
    const mark = { identity: { kind: 'growth' as const, namespace: 'db', statefulSet: 'pg', template: 'data' }, values: { from: '10Gi', to: '15Gi' } };
    const line = writeEvidenceStamp(stamp);
    assert.equal(line, '<!-- sts-volume-gitops:evidence at=2026-11-28T02%3A00%3A00.000Z basis=data-pg-0%20bytes -->');
    const body = `${writeMarker(mark)}\n${line}\n## db/pg \`data\` is filling up`;
    assert.deepEqual(readEvidenceStamp(body), stamp);
    assert.deepEqual(readMarker(body), mark);
    assert.deepEqual(readEvidenceStamp(writeEvidenceStamp({ at: written })), { at: written });
    for (const none of ['', '<!-- sts-volume-gitops:evidence basis=x -->', '<!-- sts-volume-gitops:evidence at=%E0%A4%A -->']) assert.equal(readEvidenceStamp(none), undefined, none);
  });

  it('is said in the footer, to the minute', () => {
    assert.equal(evidenceTime(written), '2026-11-28 02:00 UTC');
    assert.match(footerSection('usage rises', written).lines.join('\n'), /What it shows was read at 2026-11-28 02:00 UTC; when that moves, it is refreshed at most every 12 hours, and at once when what the proposal rests on changes\.<\/sub>$/);
  });
});
