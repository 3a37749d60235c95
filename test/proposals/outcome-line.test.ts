// What became of a proposal, in the one line plan and reconcile print under its template.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outcomeLine } from '../../functions/proposals/outcome-line.ts';
import type { ProposalOutcome } from '../../functions/proposals/proposal.ts';

const url = 'https://github.com/acme/gitops/pull/12';
const pull: ProposalOutcome = { key: 'db/pg/data', kind: 'size-recovery', action: 'unchanged', pullRequest: 12, pullRequestUrl: url, change: { from: '100Gi', to: '50Gi' } };

describe('a proposal\'s line in the pass report', () => {
  const cases: Array<[string, ProposalOutcome, string]> = [
    ['an open pull request: number, proposal, URL', pull, `recovery pull request #12 proposes 100Gi -> 50Gi: ${url}`],
    ['one found by a plan', { ...pull, action: 'open' }, `recovery pull request #12 proposes 100Gi -> 50Gi: ${url}`],
    ['one opened or updated this pass says so', { ...pull, action: 'updated' }, `recovery pull request #12 proposes 100Gi -> 50Gi: ${url} (updated)`],
    ['a class recovery names the class', { ...pull, kind: 'class-recovery', action: 'opened', change: { from: 'gold', to: 'silver' } }, `recovery pull request #12 proposes class gold -> silver: ${url} (opened)`],
    ['one left to a person', { ...pull, action: 'left-alone' }, `recovery pull request #12 proposes 100Gi -> 50Gi: ${url} (left alone: someone else pushed to its branch)`],
    ['a closed one, and why', { ...pull, action: 'closed', reason: 'the expansion to 100Gi completed' }, `recovery pull request #12 closed: the expansion to 100Gi completed: ${url}`],
    ['none, and why', { key: 'db/pg/data', kind: 'size-recovery', action: 'impossible', pullRequestUrl: undefined, reason: 'no size fits' }, 'no recovery pull request: no size fits'],
    ['none for the class, and why', { key: 'db/pg/data', kind: 'class-recovery', action: 'declined-before', pullRequestUrl: undefined, reason: 'closed by a person' }, 'no recovery pull request for the class: closed by a person'],
  ];
  for (const [name, outcome, line] of cases) it(name, () => assert.equal(outcomeLine(outcome, 'terminal'), line));
});
