// The sizeSources part of the configuration: schema and the checks parseConfig adds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../functions/domain/config.ts';
import { configProblems as problemsOf, localTargetConfig } from '../support/config-text.ts';

const config = (sources: string): string => localTargetConfig(`    sizeSources:\n${sources}`, ['logs', 'db']);

describe('sizeSources in the configuration', () => {
  it('reads mappings from values files to templates, several sets sharing one value', () => {
    const parsed = parseConfig(config(`      - { file: apps/victoria/values-prod.yaml, path: server.persistentVolume.size, statefulSet: logs/victoria-logs, template: server-volume }
      - { file: apps/pg/values.yaml, path: 'primary."persistence.size"', statefulSet: db/pg-a, template: data }
      - { file: apps/pg/values.yaml, path: 'primary."persistence.size"', statefulSet: db/pg-b, template: data }
      - { file: kustomize/patch.yaml, path: '[0].value', statefulSet: db/pg-c, template: data }`), 'test.yaml', '/etc/sts');
    assert.deepEqual(parsed.targets[0]?.sizeSources.map((s) => `${s.statefulSet}/${s.template} <- ${s.file} ${s.path}`), [
      'logs/victoria-logs/server-volume <- apps/victoria/values-prod.yaml server.persistentVolume.size',
      'db/pg-a/data <- apps/pg/values.yaml primary."persistence.size"',
      'db/pg-b/data <- apps/pg/values.yaml primary."persistence.size"',
      'db/pg-c/data <- kustomize/patch.yaml [0].value',
    ]);
  });

  const cases: Array<[string, string, RegExp]> = [
    ['a missing template', '      - { file: v.yaml, path: a.b, statefulSet: logs/x }', /^target "prod": sizeSources\[0\]\.template is required$/],
    ['a malformed path', '      - { file: v.yaml, path: a..b, statefulSet: logs/x, template: data }', /^target "prod": sizeSources\[0\]\.path "a\.\.b" is not a YAML path like server\.persistentVolume\.size/],
    ['a StatefulSet without namespace', '      - { file: v.yaml, path: a, statefulSet: x, template: data }', /^target "prod": sizeSources\[0\]\.statefulSet "x" must be namespace\/name$/],
    ['a file outside the repository', '      - { file: ../v.yaml, path: a, statefulSet: logs/x, template: data }', /^target "prod": sizeSources\[0\]\.file "\.\.\/v\.yaml" must be a path inside the repository/],
    ['an unknown field', '      - { file: v.yaml, path: a, statefulSet: logs/x, template: data, size: 1Gi }', /^target "prod": sizeSources\[0\] has an unknown field "size"$/],
    ['one template mapped twice', '      - { file: v.yaml, path: a, statefulSet: logs/x, template: data }\n      - { file: w.yaml, path: b, statefulSet: logs/x, template: data }',
      /^target "prod": sizeSources\[1\] maps logs\/x template data, which sizeSources\[0\] maps already; one template takes its size from one place$/],
  ];
  for (const [name, sources, expected] of cases) {
    it(`refuses ${name} with a sentence that names the field`, () => {
      const problems = problemsOf(config(sources));
      assert.ok(problems.some((p) => expected.test(p)), `got: ${JSON.stringify(problems)}`);
    });
  }
});
