// README's `--json` error shape names every field the CLI puts in `error` (usage, configuration): a script reading the
// documented shape meets no undocumented field.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { checkCommand } from '../../functions/cli/check-command.ts';

const noSecrets = (): Promise<string> => Promise.reject(new Error('no secrets in this test'));

/** `error` of what check --json prints for these arguments. */
async function errorOf(args: string[]): Promise<Record<string, unknown>> {
  let json = '';
  await checkCommand([...args, '--json'], { env: {}, readSecret: noSecrets, readSecretText: noSecrets }, (t) => { json += t; });
  return (JSON.parse(json) as { error: Record<string, unknown> }).error;
}

it('README\'s --json error shape names every field of a usage and a configuration error', async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const shape = /`\{"error": \{(.*?)\}\}`/.exec(readme)?.[1];
  assert.ok(shape, 'README shows the error shape as `{"error": {...}}`');
  const documented = [...shape.matchAll(/"(\w+)":/g)].map((m) => m[1]);
  const dir = await mkdtemp(join(tmpdir(), 'sts-error-docs-'));
  const bad = join(dir, 'config.yaml');
  await writeFile(bad, 'targets: []\n');
  const usage = await errorOf(['--bogus']);
  const configuration = await errorOf(['--config', bad]);
  assert.equal(usage.kind, 'usage');
  assert.equal(configuration.kind, 'configuration');
  for (const error of [usage, configuration]) {
    for (const field of Object.keys(error)) assert.ok(documented.includes(field), `README's error shape (${shape}) must name "${field}"`);
  }
});
