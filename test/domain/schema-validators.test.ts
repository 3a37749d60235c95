// The schema validators generated ahead of time (functions/domain/*-validator.js) are what the schemas give today,
// and answer exactly as ajv compiling the schemas at run time does: the same verdicts and the same errors.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import configSchema from '../../schemas/config.schema.json' with { type: 'json' };
import statefulSetSchema from '../../schemas/statefulset.schema.json' with { type: 'json' };
import { validate as validateConfig } from '../../functions/domain/config-validator.js';
import { validate as validateStatefulSet } from '../../functions/domain/statefulset-validator.js';
import { generatedValidators, validatorOptions, validatorSource } from '../../functions/domain/schema-validators-source.ts';

const target = {
  name: 'prod-eu', source: { github: { owner: 'acme', repo: 'platform-gitops', branch: 'main', paths: ['k8s/**/*.yaml'], token: { env: 'GH_TOKEN' } } },
  cluster: { eks: { name: 'prod-eu', region: 'eu-west-1' } }, namespaces: { default: 'apps', allow: ['db', 'cache'] },
};
const local = {
  name: 'local', source: { local: { directory: './repo', paths: ['**/*.yaml'] } }, cluster: { kubeconfig: { path: './kubeconfig', context: 'sandbox' } },
  namespaces: { allow: ['*'] }, pullRequests: { validate: false },
};
const configs: unknown[] = [
  { targets: [target] },
  { targets: [target, local] },
  {},
  { targets: [] },
  { targets: [{ ...target, name: 'Not A DNS Name' }] },
  { targets: [{ ...target, namespaces: { allow: ['x'.repeat(300)] } }] },
  { targets: [{ ...target, unexpected: true }], extra: 1 },
  { targets: [{ ...target, source: { github: { owner: 'acme' } } }] },
  { targets: [{ ...target, cluster: { eks: { name: 'c', region: 7 } } }] },
  'not an object',
  null,
];

const template = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } };
const statefulSet = {
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', namespace: 'db' },
  spec: { replicas: 3, serviceName: 'pg', selector: { matchLabels: { app: 'pg' } }, template: {}, volumeClaimTemplates: [template] },
};
const statefulSets: unknown[] = [
  statefulSet,
  { ...statefulSet, apiVersion: 'apps/v1beta1' },
  { ...statefulSet, metadata: { name: 'x'.repeat(300), namespace: 'Bad_Namespace' } },
  { ...statefulSet, spec: { ...statefulSet.spec, replicas: -1, podManagementPolicy: 'Sometimes' } },
  { ...statefulSet, spec: { ...statefulSet.spec, selector: { matchExpressions: [{ key: 'app', operator: 'Maybe' }] } } },
  { ...statefulSet, spec: { ...statefulSet.spec, volumeClaimTemplates: [{ metadata: {}, spec: { resources: { requests: { storage: 10 } } } }] } },
  { kind: 'StatefulSet' },
  [],
];

function assertSameAnswers(generated: ValidateFunction, schema: object, inputs: unknown[]): void {
  const compiled = new Ajv(validatorOptions).compile(schema);
  const verdicts = inputs.map((input) => {
    const verdict = generated(input);
    assert.equal(verdict, compiled(input), JSON.stringify(input));
    assert.deepEqual(generated.errors ?? null, compiled.errors ?? null, JSON.stringify(input));
    return verdict;
  });
  // The inputs exercise both answers.
  assert.ok(verdicts.includes(true) && verdicts.includes(false), `verdicts ${JSON.stringify(verdicts)}`);
}

describe('the generated schema validators', () => {
  it('are the files the schemas generate today (run `npm run generate:validators` after changing a schema)', async () => {
    for (const { file, schema, schemaFile } of generatedValidators) {
      assert.equal(await readFile(file, 'utf8'), validatorSource(schema, schemaFile), `${file.pathname} is stale`);
    }
  });

  it('give the verdicts and errors ajv gives when it compiles the configuration schema at run time', () => {
    assertSameAnswers(validateConfig, configSchema, configs);
  });

  it('give the verdicts and errors ajv gives when it compiles the StatefulSet schema at run time', () => {
    assertSameAnswers(validateStatefulSet, statefulSetSchema, statefulSets);
  });
});
