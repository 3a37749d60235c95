// README's command list is the CLI's own: rendered from the command table that parses the flags and prints the help.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { exitCodesLine, renderCommandHelp, renderOverview, renderSynopses } from '../../functions/cli/command-line.ts';
import { commandTable } from '../../functions/cli/command-table.ts';
import { statefulSetSeverity } from '../../functions/engine/report/pass-verdict.ts';
import { outcomeWords } from '../../functions/feedback/glossary.ts';
import { markerLegendLine } from '../../functions/cli/plan-markers.ts';

it('README lists every command with every flag, as the command table has them', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /<!--[^\n]*\(renderSynopses\)[^\n]*-->\n```sh\n([\s\S]*?)\n```\n<!-- end/.exec(readme)?.[1];
  const expected = renderSynopses();
  assert.equal(block, expected, `README.md's "Command line" must hold, in a sh block between <!-- ... (renderSynopses) ... --> and <!-- end ... -->, exactly:\n${expected}`);
});

it('the help says the exit codes as README does, naming every outcome that exits 1', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  assert.ok(readme.includes(exitCodesLine), `README.md must say, as the help does: ${exitCodesLine}`);
  for (const [outcome, severity] of Object.entries(statefulSetSeverity)) {
    const word = outcomeWords[outcome as keyof typeof outcomeWords].split(' ')[0] ?? outcome;
    if (severity !== undefined) assert.ok(exitCodesLine.includes(word), `a set ${outcome} exits 1: the help must say "${word}"`);
  }
  for (const help of [renderOverview('0.0.0'), ...Object.values(commandTable).map((spec) => renderCommandHelp(spec))]) assert.ok(help.includes(exitCodesLine));
});

it('README gives the legend of the plan\'s markers as plan --help does (issue 37 item 10)', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /<!--[^\n]*\(markerLegendLine\)[^\n]*-->\n([\s\S]*?)\n<!-- end/.exec(readme)?.[1];
  assert.equal(block?.replace(/\s+/g, ' '), markerLegendLine(), `README.md must hold, between <!-- ... (markerLegendLine) ... --> and <!-- end ... -->:\n${markerLegendLine()}`);
  assert.ok(renderCommandHelp(commandTable.plan).replace(/\s+/g, ' ').includes(markerLegendLine()));
});
