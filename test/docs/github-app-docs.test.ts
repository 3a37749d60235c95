// README.md and infra/README.md tell an operator the same GitHub App permissions and webhook events, and those are the
// code's: each doc shows the tables rendered from functions/check/github-app-settings.ts, and any "**Permission:
// level**" its prose names is one the table gives.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { payloadReaders } from '../../functions/app/webhook-payloads.ts';
import { neededGitHubPermissions, permissionTitle } from '../../functions/check/github-permissions.ts';
import { appEvents, appPermissionRows, renderAppEvents, renderAppPermissions } from '../../functions/check/github-app-settings.ts';

const docs = ['README.md', 'infra/README.md'].map((path) => ({ path, text: readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8') }));

/** The lines between the marker naming `renderer` and the next `<!-- end` marker. */
function renderedBlock(text: string, renderer: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('<!--') && line.includes(`(${renderer})`));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && line.startsWith('<!-- end'));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

describe('the GitHub App settings in the docs', () => {
  for (const [renderer, expected] of [['renderAppPermissions', renderAppPermissions()], ['renderAppEvents', renderAppEvents()]] as const) {
    it(`both docs show ${renderer}'s table as the code renders it`, () => {
      for (const doc of docs) {
        assert.equal(renderedBlock(doc.text, renderer), expected,
          `${doc.path} must hold, between <!-- ... (${renderer}) ... --> and <!-- end ... -->, exactly:\n${expected}`);
      }
    });
  }

  it('the prose names no permission at a level the table does not give', () => {
    const granted = new Set(appPermissionRows().flatMap((row) => [row.level, ...(row.lowerWhen ? [row.lowerWhen.level] : [])]
      .map((level) => `${permissionTitle(row.permission)}: ${level}`)));
    for (const doc of docs) {
      const named = [...doc.text.matchAll(/\*\*([A-Z][a-z]+(?: [a-z]+)*): (read|write)\*\*/g)].map((match) => `${match[1]}: ${match[2]}`);
      assert.ok(named.length > 0 || doc.path === 'infra/README.md', `${doc.path} names the permissions it asks for`);
      for (const mention of named) assert.ok(granted.has(mention), `${doc.path} names **${mention}**, which the table does not give`);
    }
  });

  it('the events are those the webhook reads, and the permissions cover everything check asks of an App', () => {
    assert.deepEqual(Object.keys(appEvents).sort(), Object.keys(payloadReaders).sort());
    assert.deepEqual(Object.keys(appEvents).sort(), ['check_run', 'check_suite', 'merge_group', 'pull_request', 'push']);
    const rows = appPermissionRows();
    for (const recovery of [true, false]) {
      for (const need of neededGitHubPermissions({ validate: true, recovery, writeBack: recovery, forks: 'neutral' }, { checkRuns: true })) {
        assert.ok(rows.some((row) => row.permission === need.permission && (row.level === need.level || row.lowerWhen?.level === need.level)), `${need.permission}: ${need.level}`);
      }
    }
    for (const setting of Object.values(appEvents)) assert.ok(rows.some((row) => row.permission === setting.needs), setting.needs);
  });
});
