// What `check` prints: one line per result with its fix below, the webhook's section only when it checked something.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { renderCheckReport } from '../../functions/cli/render-check.ts';

const missingVerb = { id: 'cluster.access', level: 'error' as const, subject: 'db', message: 'patch persistentvolumeclaims is refused', fix: 'grant it' };

it('prints each result with its fix and counts the levels, leaving out a webhook section with nothing in it', () => {
  const text = renderCheckReport({ targets: [{ target: 'demo', results: [missingVerb] }], webhook: [] });
  assert.ok(text.startsWith([
    'target demo',
    `  error   ${'cluster.access'.padEnd(30)} db: patch persistentvolumeclaims is refused`,
    `${' '.repeat(41)}fix: grant it`,
  ].join('\n')), text);
  assert.doesNotMatch(text, /^webhook$/m);
  assert.match(text, /1 error, 0 warnings, 0 ok\n$/);
});

it('prints the webhook section when the webhook was checked', () => {
  const secret = { id: 'webhook.secret', level: 'ok' as const, subject: 'webhook', message: 'set' };
  assert.match(renderCheckReport({ targets: [], webhook: [secret] }), /^webhook\n {2}ok {6}webhook\.secret/m);
});
