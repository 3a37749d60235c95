// The progress of a merged change whose volumes were grown outside Git since (pure): blocked only by the "decrease"
// below their capacity, with a write-back pull request open, it is no failure of the change: success when every
// volume has at least what it asked, pending while one is still below it (the write-back, merged, grows it); without
// a write-back pull request, the failure it always was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { reportFromPlan } from '../../functions/engine/run-pass.ts';
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
