// Whether the check is required from the tool's App, judged from what the rules say (pure).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeRequiredCheckSource } from '../../functions/check/required-check-source.ts';

const base = { context: 'sts-volume-gitops/validate (prod)', branch: 'main', appId: 7 };

describe('judgeRequiredCheckSource', () => {
  it('is ok when any rule pins the check to the App, another rule leaving it open or not', () => {
    const result = judgeRequiredCheckSource({ ...base, protection: { read: [{ where: 'the branch protection of main', appId: undefined }] }, rulesets: { read: [{ where: 'the ruleset 3', appId: 7 }] } });
    assert.equal(result.level, 'ok');
  });

  it('says what it could not read beside what it could', () => {
    const result = judgeRequiredCheckSource({ ...base, protection: { unreadable: 'branch protection requires: reading it needs X' }, rulesets: { read: [{ where: 'the ruleset 3', appId: undefined }] } });
    assert.equal(result.level, 'warning');
    assert.match(result.message, /^the ruleset 3 requires .* from any source: .*; cannot tell what branch protection requires: reading it needs X$/);
  });

  it('warns that a token\'s check is anyone\'s, required or not', () => {
    const result = judgeRequiredCheckSource({ ...base, appId: undefined, protection: { read: [] }, rulesets: { read: [] } });
    assert.equal(result.level, 'warning');
    assert.match(result.message, /^with a token, .* even when required, a collaborator's status of that name turns it green$/);
  });

  it('warns when nothing requires the check at all', () => {
    const result = judgeRequiredCheckSource({ ...base, protection: { read: [] }, rulesets: { read: [] } });
    assert.equal(result.message, 'no rule requires sts-volume-gitops/validate (prod) on main: a pull request can merge whatever its verdict');
  });
});
