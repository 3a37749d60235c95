// Issue 37, item 4: `check` can pass before the stack is deployed, in the order infra/README.md gives. The
// configuration names the two secrets the stack creates (the App key, created empty, and the record key, generated);
// before deployment Secrets Manager says they do not exist, and check says the stack creates them (warnings, exit 0),
// not errors. Once they exist (after deploying and storing the key) they are read and the GitHub checks run. The CLI
// runs as a child process with the real Secrets Manager client, pointed at a local endpoint (AWS_ENDPOINT_URL_SECRETS_MANAGER).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';
import { startLocalSqs, type LocalSqs } from '../lambda/local-sqs.ts';

describe('check before the stack is deployed', () => {
  let sandboxes: CheckSandboxes;
  let aws: LocalSqs;
  const secrets: Record<string, string> = {};
  let config: string;
  let awsEnv: Record<string, string>;

  before(async () => {
    sandboxes = await startCheckSandboxes();
    aws = await startLocalSqs({ secrets });
    const { appId, installationId } = sandboxes.github.app;
    config = await sandboxes.configFile('stack-secrets', {
      edit: (text) => text
        .replace('token: { env: CHECK_GITHUB_TOKEN }', `app: { appId: ${appId}, installationId: ${installationId}, privateKey: { secret: github/sts-volume-gitops } }`)
        .replace(/recordKey: \{ env: \w+ \}/, 'recordKey: { secret: sts-volume-gitops/record-key }'),
    });
    awsEnv = {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'test',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_CONFIG_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true',
    };
  });
  after(async () => {
    await aws.close();
    await sandboxes.close();
  });

  it('says the stack creates the secrets that do not exist yet, as warnings: check passes before deploying', async () => {
    const checked = await sandboxes.cli(['check', '--config', config], awsEnv);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /warning +config\.record-key +recordKey: secret sts-volume-gitops\/record-key does not exist yet: the stack creates it at deploy, with a generated key/);
    assert.match(checked.stdout, /warning +github\.credential +acme\/platform-gitops: secret github\/sts-volume-gitops does not exist yet: the stack creates it, empty, at deploy/);
    assert.match(checked.stdout, /fix: deploy \(infra\/README\.md, step 4\), store the App's private key in github\/sts-volume-gitops \(step 5\), then check again/);
    assert.doesNotMatch(checked.stdout, /^ +error /m);
  });

  it('reads them once they exist; a secret named by its ARN is not one the stack creates, and must exist', async () => {
    secrets['sts-volume-gitops/record-key'] = JSON.stringify({ recordKey: 'k'.repeat(40) });
    secrets['github/sts-volume-gitops'] = JSON.stringify({ privateKey: sandboxes.github.app.privateKeyPem });
    const deployed = await sandboxes.cli(['check', '--config', config], awsEnv);
    assert.equal(deployed.code, 0, deployed.stdout + deployed.stderr);
    assert.match(deployed.stdout, /ok +config\.record-key +recordKey: readable/);
    assert.match(deployed.stdout, /ok +github\.credential +acme\/platform-gitops: the App installation is accepted/);
    assert.match(deployed.stdout, /ok +source\.paths /);
    // An ARN names a secret made elsewhere: that it does not exist is an error, whoever deploys.
    const arn = await sandboxes.configFile('arn-secret', {
      edit: (text) => text.replace(/recordKey: \{ env: \w+ \}/, 'recordKey: { secret: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:elsewhere-AbCdEf" }'),
    });
    const missing = await sandboxes.cli(['check', '--config', arn], awsEnv);
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /error +config\.record-key +recordKey: cannot read secret arn:aws:secretsmanager:.*elsewhere-AbCdEf: Secrets Manager can't find the specified secret/);
  });
});
