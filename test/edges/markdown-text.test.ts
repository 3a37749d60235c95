// The demo shows comments, check runs and pull request bodies as GitHub renders them (issue 30 item 9: it printed
// `-&gt;` and `\+`): the renderers' own Markdown turned into the text a reviewer reads.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { displayWidth, markdownToText } from '../../functions/cli/markdown-text.ts';
import { codeBlock, escapeMarkdown } from '../../functions/feedback/escape-markdown.ts';

it('undoes escapes and entities, drops emphasis, links and comments, aligns tables and keeps code verbatim', () => {
  const markdown = [
    '<!-- sts-volume-gitops:plan:demo -->',
    `### sts-volume-gitops plan for \`demo\` at 31a2021`,
    '',
    `**${escapeMarkdown('db/pg: 3 PVCs grow 20Gi -> 30Gi; +3.00 USD a month (a_b) <x> @team')}**`,
    '',
    '| StatefulSet | Quota | Verdict |',
    '| --- | --- | --- |',
    `| ${escapeMarkdown('db/pg')} | ${escapeMarkdown('storage: 60Gi + 30Gi of 500Gi')}<br>second | ✅ will resize |`,
    `| ${escapeMarkdown('db/longer-name')} | — | ❌ blocked |`,
    '',
    `- ❌ **db/big** \`data\` at [k8s/db/pg.yaml:30](https://github.com/acme/gitops/blob/abc/k8s/db/pg.yaml#L30):`,
    codeBlock('raw \\+ text <kept>'),
    '<sub>Checked; nothing was changed.</sub>',
  ].join('\n');
  assert.equal(markdownToText(markdown), [
    'sts-volume-gitops plan for demo at 31a2021',
    '',
    'db/pg: 3 PVCs grow 20Gi -> 30Gi; +3.00 USD a month (a_b) <x> @team',
    '',
    'StatefulSet     Quota                                  Verdict',
    'db/pg           storage: 60Gi + 30Gi of 500Gi; second  ✅ will resize',
    'db/longer-name  —                                      ❌ blocked',
    '',
    '• ❌ db/big data at k8s/db/pg.yaml:30:',
    '  raw \\+ text <kept>',
    'Checked; nothing was changed.',
  ].join('\n'));
  assert.equal(displayWidth('✅ done'), 7, 'a wide emoji takes two columns');
  assert.equal(displayWidth('⚠️ stalled'), 10, 'a symbol with the emoji selector too');
});
