// The progress of a merged change whose volumes were grown outside Git since (pure): blocked only by the "decrease"
// below their capacity, with a write-back pull request open, it is no failure of the change: success when every
// volume has at least what it asked, pending while one is still below it (the write-back, merged, grows it); without
// a write-back pull request, the failure it always was. The ending of a change Git replaced says the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { reportFromPlan } from '../../functions/engine/run-pass.ts';
import { renderEnding } from '../../functions/feedback/render-ending.ts';
import { renderProgressComment } from '../../functions/feedback/render-progress.ts';
import { desiredSet, desiredTemplate, pgWorld } from '../engine/builders.ts';

const url = 'https://github.com/acme/gitops/pull/7';

function progress(pvcs: Parameters<typeof pgWorld>[0], links?: ReadonlyMap<string, string>): ReturnType<typeof renderProgressComment> {
  const [plan] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], pgWorld(pvcs, { size: '20Gi' }), { allowedNamespaces: ['*'] });
  assert.ok(plan);
  const sts = reportFromPlan(plan, 'c0ffee');
  assert.equal(sts.outcome, 'blocked');
  return renderProgressComment({ target: 'prod', sts, commitSha: 'c0ffee', ...(links ? { writeBackLinks: links } : {}) });
}

describe('the progress of a change whose volumes were grown outside Git since', () => {
  const links = new Map([['db/pg/data', url]]);

  it('is pending while a volume is still below what the change asked, and links the write-back', () => {
    const summary = progress({ 0: { request: '30Gi' }, 1: { request: '15Gi' }, 2: { request: '20Gi' } }, links);
    assert.equal(summary.state, 'pending');
    assert.equal(summary.title, 'data: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request #7 proposes it');
    assert.equal(summary.link, url);
    assert.match(summary.markdown, /^### 🔄 /m);
  });

  it('is a success when every volume has at least what the change asked', () => {
    assert.equal(progress({ 0: { request: '30Gi' }, 1: { request: '20Gi' }, 2: { request: '25Gi' } }, links).state, 'success');
  });

  it('is the failure it was without a write-back pull request', () => {
    const summary = progress({ 0: { request: '30Gi' }, 1: { request: '20Gi' }, 2: { request: '20Gi' } });
    assert.equal(summary.state, 'failure');
    assert.equal(summary.link, undefined);
    assert.match(summary.title, /^data: 20Gi is not above the current capacity of data-pg-0 \(30Gi\)/);
  });
});

describe('the ending of a change Git replaced, its set now grown outside Git', () => {
  // The set's own check says pending or success while the write-back proposes the volumes' size: the check of the
  // replaced change's commit follows the set, so it says the same, not a failure.
  const [plan] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], pgWorld({ 0: { request: '30Gi' }, 1: { request: '20Gi' }, 2: { request: '25Gi' } }, { size: '20Gi' }), { allowedNamespaces: ['*'] });
  assert.ok(plan);
  const sts = reportFromPlan(plan, 'c0ffee');
  const template = sts.templates[0];
  assert.ok(template);
  const ending = (links?: ReadonlyMap<string, string>): ReturnType<typeof renderEnding> => renderEnding({
    target: 'prod', sts, commitSha: 'a'.repeat(40), ...(links ? { writeBackLinks: links } : {}),
    ended: [{ template, replaced: { desiredSize: '100Gi', commitSha: 'a'.repeat(40), failedForGood: true } }],
    by: { sha: 'b'.repeat(40), pullRequest: 15, recovered: new Set() },
  });

  it('follows the set\'s state with the write-back pull request, a failure without it', () => {
    assert.equal(ending(new Map([['db/pg/data', url]])).state, renderProgressComment({ target: 'prod', sts, commitSha: 'c0ffee', writeBackLinks: new Map([['db/pg/data', url]]) }).state);
    assert.equal(ending(new Map([['db/pg/data', url]])).state, 'success');
    assert.equal(ending().state, 'failure');
  });
});
