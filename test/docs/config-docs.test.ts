// README's Configuration shows every way the schema allows to name the GitHub source and its credentials (issue 37
// item 4: `privateKey: { file | env }` and `source.github.apiUrl` were in the schema but in no README), read off
// schemas/config.schema.json, so a field added there is not left undocumented.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { knownFields } from '../../functions/domain/schema-fields.ts';

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
