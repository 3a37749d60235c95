// README's command list is the CLI's own: rendered from the command table that parses the flags and prints the help.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { renderSynopses } from '../../functions/cli/command-line.ts';

it('README lists every command with every flag, as the command table has them', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /<!--[^\n]*\(renderSynopses\)[^\n]*-->\n```sh\n([\s\S]*?)\n```\n<!-- end/.exec(readme)?.[1];
  const expected = renderSynopses();
  assert.equal(block, expected, `README.md's "Command line" must hold, in a sh block between <!-- ... (renderSynopses) ... --> and <!-- end ... -->, exactly:\n${expected}`);
});
