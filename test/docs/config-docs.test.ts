// README's Configuration shows the default growth factor the code has, and every way the schema allows to name the GitHub source and its credentials (issue 37
// item 4: `privateKey: { file | env }` and `source.github.apiUrl` were in the schema but in no README), read off
// schemas/config.schema.json, so a field added there is not left undocumented.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { knownFields } from '../../functions/domain/schema-fields.ts';
import { defaultMaxGrowthFactor } from '../../functions/engine/plan/guardrails.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** README's "## Configuration" section, up to the next "## ". */
function configurationSection(): string {
  const start = readme.indexOf('\n## Configuration\n');
  assert.ok(start >= 0, 'README.md has a "## Configuration" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

it('README\'s Configuration names every field of source.github, its App and the App\'s privateKey', () => {
  const section = configurationSection();
  // A privateKey field is shown as `privateKey: { file: ...`: a bare `file:` may be another setting's.
  const places: Array<[string, (field: string) => RegExp]> = [
    ['/targets/0/source/github', (field) => new RegExp(`\\b${field}:`)],
    ['/targets/0/source/github/app', (field) => new RegExp(`\\b${field}:`)],
    ['/targets/0/source/github/app/privateKey', (field) => new RegExp(`privateKey: \\{ ${field}:`)],
  ];
  const missing = places.flatMap(([place, shown]) => knownFields(place).filter((field) => !shown(field).test(section)).map((field) => `${place}/${field}`));
  assert.deepEqual(missing, [], `README.md's Configuration section must show ${missing.join(', ')} (as \`field:\` in an example)`);
});

it('README says the default growth factor the code has, and why it is below 10 (issue 37 item 18)', () => {
  const section = configurationSection();
  assert.ok(section.includes(`(default ${defaultMaxGrowthFactor})`), 'the guardrails example says the default');
  assert.ok(section.includes(`Only \`maxGrowthFactor\` has a default, ${defaultMaxGrowthFactor}:`), 'the list says the default');
  assert.ok(defaultMaxGrowthFactor < 10, 'an extra zero (exactly 10x) must not pass by default');
  assert.match(section.replace(/\s+/g, ' '), /the classic typo is an extra zero \(`5Gi` -> `50Gi`\), exactly 10x/);
});
