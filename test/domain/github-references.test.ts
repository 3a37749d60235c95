// referenceFreeText: a pull request's title or a commit message's line as GitHub links nothing in it (issue 34 item 3).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { referenceFreeText } from '../../functions/domain/github-references.ts';
import { printable } from '../../functions/domain/printable.ts';
import { gitHubReference } from '../support/cmark.ts';
import { hostileText } from '../support/hostile-text.ts';

describe('text GitHub links no reference in', () => {
  it('breaks mentions, teams, issues, GH- references, SHAs, URLs and emoji with a zero-width space', () => {
    assert.equal(referenceFreeText('@octo @acme/team #12 acme/x#3 GH-12 a5c3785ed8d6 https://x www.y :tada: 20:49:54 db/pg: 10Gi'),
      '@\u200bocto @\u200bacme/team #\u200b12 acme/x#\u200b3 GH-\u200b12 a5c378\u200b5ed8d6 https:\u200b//x www\u200b.y :\u200btada: 20:49:54 db/pg: 10Gi');
  });

  it('leaves nothing GitHub would link, and reads as the printable text', () => {
    fc.assert(fc.property(hostileText, (text) => {
      const free = referenceFreeText(text);
      assert.doesNotMatch(free, gitHubReference);
      assert.equal(free.replace(/\u200b/g, ''), printable(text));
    }), { numRuns: 2000 });
  });
});
