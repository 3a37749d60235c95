// The key that signs recreation records (issue 22): the stack creates the secret the config names with a generated
// key, and only the worker, which writes and checks the records, may read it.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { StsVolumeGitopsStack } from '../../infra/stack.ts';

const config = `targets:
  - name: prod-eu
    source: { github: { owner: acme, repo: platform-gitops, branch: main, paths: ["k8s/**"], token: { env: GITHUB_TOKEN } } }
    cluster: { eks: { name: prod-eu, region: eu-west-1 } }
    namespaces: { default: platform, allow: [db] }
    recordKey: { secret: sts-volume-gitops/record-key }
  - name: prod-us
    source: { github: { owner: acme, repo: platform-gitops, branch: main, paths: ["k8s/**"], token: { env: GITHUB_TOKEN } } }
    cluster: { eks: { name: prod-eu-2, region: eu-west-1 } }
    namespaces: { default: platform, allow: [db] }
    recordKey: { secret: sts-volume-gitops/record-key }
`;

type Policy = { Properties: { Roles: Array<{ Ref: string }>; PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } } };

describe('the record key secret', () => {
  it('is generated under the name the config gives, once for the targets sharing it, and read by the worker only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-record-key-'));
    await writeFile(join(dir, 'config.yaml'), config);
    const app = new App({ outdir: join(dir, 'cdk.out') });
    const stack = new StsVolumeGitopsStack(app, 'Test', {
      env: { account: '123456789012', region: 'eu-west-1' }, configFile: join(dir, 'config.yaml'), alarmEmail: 'oncall@example.com',
      entry: fileURLToPath(new URL('fixtures/handler.ts', import.meta.url)),
    });
    const template = Template.fromStack(stack);
    const secrets = template.findResources('AWS::SecretsManager::Secret', { Properties: { Name: 'sts-volume-gitops/record-key' } });
    assert.equal(Object.keys(secrets).length, 1);
    const [secretId, secret] = Object.entries(secrets)[0] ?? assert.fail('the secret');
    assert.deepEqual((secret as { Properties: { GenerateSecretString: unknown } }).Properties.GenerateSecretString,
      { ExcludePunctuation: true, GenerateStringKey: 'recordKey', PasswordLength: 64, SecretStringTemplate: '{}' });
    const workerRole = (template.findResources('AWS::Lambda::Function') as Record<string, { Properties: { Role: { 'Fn::GetAtt': [string, string] }; Timeout: number } }>);
    const worker = Object.values(workerRole).find((f) => f.Properties.Timeout === 300)?.Properties.Role['Fn::GetAtt'][0];
    const readers = (Object.values(template.findResources('AWS::IAM::Policy')) as Policy[])
      .filter((p) => p.Properties.PolicyDocument.Statement.some((s) => JSON.stringify(s.Resource).includes(secretId)))
      .flatMap((p) => p.Properties.Roles.map((r) => r.Ref));
    assert.deepEqual(readers, [worker]);
  });
});
