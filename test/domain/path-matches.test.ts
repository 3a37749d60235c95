// Paths that match no file (issue 30): which globs match what, and where the YAML files are instead.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchPaths, noPathMatches, whereYamlFilesAre } from '../../functions/domain/path-matches.ts';

const files = ['README.md', 'k8s/db/pg.yaml', 'k8s/cache/redis.yaml', 'k8s/analytics/clickhouse.yaml', 'apps/victoria-logs/values-prod.yaml', 'ci.yml'];

describe('paths that match no file', () => {
  it('counts the YAML files each glob matches, and tells one glob that misses from all that miss', () => {
    const matches = matchPaths(files, ['k8s/**/*.yaml', 'manifests/**/*.yaml', '*.md']);
    assert.deepEqual(matches.map((m) => [m.glob, m.files]), [['k8s/**/*.yaml', 3], ['manifests/**/*.yaml', 0], ['*.md', 0]]);
    assert.equal(noPathMatches(matches), false);
    assert.equal(noPathMatches(matchPaths(files, ['manifests/**/*.yaml'])), true);
  });

  it('says "did you mean" for a directory one typo away, with the rest of the glob kept', () => {
    assert.equal(whereYamlFilesAre(files, ['k8/**/*.yaml']), 'k8/ has no YAML file; did you mean k8s/**/*.yaml?');
    assert.equal(whereYamlFilesAre(files, ['./k8s/dbs/*.yaml']), 'k8s/dbs/ has no YAML file; did you mean k8s/db/*.yaml?');
  });

  it('lists the YAML files under a directory that exists but that the glob does not reach', () => {
    // ... and the glob that reaches them (issue 37 item 14: README promised it, it never came).
    assert.equal(whereYamlFilesAre(files, ['k8s/*.yaml']), 'k8s/ holds k8s/analytics/clickhouse.yaml, k8s/cache/redis.yaml, k8s/db/pg.yaml; did you mean k8s/**/*.yaml?');
  });

  it('else names where the YAML files are, or that there is none', () => {
    assert.equal(whereYamlFilesAre(files, ['deploy/**/*.yaml']), 'the YAML files are in apps/, ci.yml, k8s/; did you mean k8s/**/*.yaml?', 'the directory with the most');
    assert.equal(whereYamlFilesAre(files, ['*.yaml']), 'the YAML files are in apps/, ci.yml, k8s/; did you mean k8s/**/*.yaml?');
    assert.equal(whereYamlFilesAre(['README.md'], ['k8s/**/*.yaml']), 'the source has no YAML file at all');
  });
});
