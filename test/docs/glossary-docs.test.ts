// README's "Words" section is the glossary the renderers keep (functions/feedback/glossary.ts), rendered: a word whose
// meaning changes in code changes there too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { renderGlossary } from '../../functions/feedback/glossary.ts';

it('README.md shows the glossary as functions/feedback/glossary.ts renders it', () => {
  const lines = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('<!--') && line.includes('(renderGlossary)'));
  const end = lines.findIndex((line, index) => index > start && line.startsWith('<!-- end'));
  assert.ok(start >= 0 && end > start, 'README.md has a "Words" section between <!-- ... (renderGlossary) ... --> and <!-- end ... -->');
  assert.equal(lines.slice(start + 1, end).join('\n'), renderGlossary());
});
