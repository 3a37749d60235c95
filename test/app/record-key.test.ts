// Where the record key and the state namespace come from, and when the key is read (issue 22): the key is named, never given; the Lease and the
// records live in a namespace of their own unless the config says otherwise.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTarget } from '../../functions/app/open-target.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { recordKeyFromSecret } from '../../functions/lambda/record-key-secret.ts';
import { configProblems as problemsOf, localTargetConfig } from '../support/config-text.ts';

const target = (fields: string): string => localTargetConfig(fields);

describe('recordKey and namespaces.state', () => {
  it('reads a key in a file (resolved against the config), a variable or a secret, and the state namespace', () => {
    const [fromFile] = parseConfig(target('    namespaces: { allow: [db], state: ops }\n    recordKey: { file: keys/record }\n'), 'c.yaml', '/etc/sts').targets;
    assert.deepEqual(fromFile?.recordKey, { file: '/etc/sts/keys/record' });
    assert.equal(fromFile?.namespaces.state, 'ops');
    const [fromSecret] = parseConfig(target('    namespaces: { allow: [db] }\n    recordKey: { secret: sts-volume-gitops/record-key }\n'), 'c.yaml', '/').targets;
    assert.deepEqual(fromSecret?.recordKey, { secret: 'sts-volume-gitops/record-key' });
    assert.equal(fromSecret?.namespaces.state, 'sts-volume-gitops', 'a namespace of its own by default');
    const [none] = parseConfig(target('    namespaces: { allow: [db] }\n'), 'c.yaml', '/').targets;
    assert.equal(none?.recordKey, undefined);
  });

  it('explains a key given where its name belongs, two sources, or a bad state namespace, never showing the key', () => {
    const pasted = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpL';
    const problems = problemsOf(target(`    namespaces: { allow: [db] }\n    recordKey: { env: ${pasted} }\n`));
    assert.deepEqual(problems, ['target "prod": recordKey.env must name where the key is kept, but its value looks like the key itself (not shown); move it to an environment variable or secret and name that']);
    assert.deepEqual(problemsOf(target('    namespaces: { allow: [db] }\n    recordKey: { env: A, file: b }\n')), ['target "prod": recordKey must have exactly one of file, env or secret']);
    assert.match(problemsOf(target('    namespaces: { allow: [db], state: Not_A_Namespace }\n')).join('\n'), /target "prod": namespaces\.state "Not_A_Namespace" does not have the expected form/);
  });
});

describe('recordKeyFromSecret', () => {
  it('reads the shape the stack generates, or a bare key; a JSON without it names the secret, not the value', () => {
    assert.equal(recordKeyFromSecret('s', '{"recordKey":"abc"}'), 'abc');
    assert.equal(recordKeyFromSecret('s', '  bare-key  \n'), 'bare-key');
    assert.throws(() => recordKeyFromSecret('sts/key', '{"privateKey":"secret-value"}'), (error: Error) => /cannot read secret sts\/key: the JSON has no "recordKey"/.test(error.message) && !error.message.includes('secret-value'));
  });
});

describe('openTarget and the record key', () => {
  it('reads the key only for apply passes, and fails the target, naming where it looked, when it is missing or short', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-record-key-'));
    await writeFile(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: [{ name: c, cluster: { server: "https://127.0.0.1:1" } }]\nusers: [{ name: u, user: { token: t } }]\ncontexts: [{ name: x, context: { cluster: c, user: u } }]\ncurrent-context: x\n');
    const [config] = parseConfig(target('    namespaces: { allow: [db] }\n    recordKey: { env: RECORD_KEY }\n'), 'c.yaml', dir).targets;
    assert.ok(config);
    assert.equal((await openTarget(config, { env: {}, needsRecordKey: false })).recordKey, undefined, 'plan and validate passes never need it');
    await assert.rejects(openTarget(config, { env: {}, needsRecordKey: true }), /target prod: the record key \(environment variable RECORD_KEY\) is empty or not set/);
    await assert.rejects(openTarget(config, { env: { RECORD_KEY: 'too-short-a-key' }, needsRecordKey: true }),
      (error: Error) => /environment variable RECORD_KEY is shorter than 32 characters/.test(error.message) && !error.message.includes('too-short-a-key'));
    const opened = await openTarget(config, { env: { RECORD_KEY: 'x'.repeat(44) }, needsRecordKey: true });
    assert.equal(String(opened.recordKey), '(record key)');
  });
});
