// The CDK app reads the configuration from the variable the CLI reads ($STS_VOLUME_GITOPS_CONFIG); the variable
// infra/README.md named before still works, with a warning; and `cdk synth` without a usable configuration says what to
// do instead of printing a stack trace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { stackConfigFile } from '../../infra/config-file.ts';

const run = promisify(execFile);
const app = fileURLToPath(new URL('../../infra/app.ts', import.meta.url));
const there = (): boolean => true;
const nowhere = (): boolean => false;

describe('the configuration file of the CDK app', () => {
  it('is $STS_VOLUME_GITOPS_CONFIG, as for the CLI, relative to where cdk runs', () => {
    assert.deepEqual(stackConfigFile({ STS_VOLUME_GITOPS_CONFIG: 'prod.yaml' }, '/repo/infra', there), { file: '/repo/infra/prod.yaml', warnings: [] });
    assert.deepEqual(stackConfigFile({}, '/repo/infra', there), { file: '/repo/infra/config.yaml', warnings: [] });
  });

  it('still reads $STS_VOLUME_GITOPS_CONFIG_FILE, saying it is deprecated, and ignores it beside the new one', () => {
    assert.deepEqual(stackConfigFile({ STS_VOLUME_GITOPS_CONFIG_FILE: '/etc/old.yaml' }, '/repo/infra', there), {
      file: '/etc/old.yaml', warnings: ['STS_VOLUME_GITOPS_CONFIG_FILE is deprecated: set STS_VOLUME_GITOPS_CONFIG instead (the variable the CLI reads too)'],
    });
    assert.deepEqual(stackConfigFile({ STS_VOLUME_GITOPS_CONFIG_FILE: '/etc/old.yaml', STS_VOLUME_GITOPS_CONFIG: '/etc/new.yaml' }, '/', there), {
      file: '/etc/new.yaml', warnings: ['STS_VOLUME_GITOPS_CONFIG_FILE is ignored: STS_VOLUME_GITOPS_CONFIG is set (unset STS_VOLUME_GITOPS_CONFIG_FILE)'],
    });
  });

  it('names the variable to set when there is no file', () => {
    assert.deepEqual(stackConfigFile({}, '/repo/infra', nowhere), {
      problem: 'no configuration file: set STS_VOLUME_GITOPS_CONFIG to the tool\'s configuration (the file the CLI\'s --config reads), e.g. export STS_VOLUME_GITOPS_CONFIG=$PWD/config.yaml; without it, cdk reads config.yaml in /repo/infra, which does not exist',
    });
    assert.deepEqual(stackConfigFile({ STS_VOLUME_GITOPS_CONFIG: 'gone.yaml' }, '/repo', nowhere), { problem: 'the configuration file /repo/gone.yaml ($STS_VOLUME_GITOPS_CONFIG) does not exist' });
  });
});

describe('cdk synth (infra/app.ts) without a usable configuration', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-cdk-app-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** infra/app.ts as cdk runs it (`npx tsx app.ts`), from an empty folder. */
  async function synth(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    if (env.STS_VOLUME_GITOPS_CONFIG === undefined) delete childEnv.STS_VOLUME_GITOPS_CONFIG;
    delete childEnv.STS_VOLUME_GITOPS_CONFIG_FILE;
    for (const name of ['STS_ALARM_EMAIL', 'STS_ALARM_TOPIC_ARN', 'STS_LOG_RETENTION_DAYS', 'CDK_DEFAULT_REGION']) if (env[name] === undefined) delete childEnv[name];
    return run(process.execPath, ['--import', import.meta.resolve('tsx'), app], { cwd: dir, env: childEnv })
      .then((output) => ({ code: 0, ...output }), (failure: unknown) => failure as { code: number; stdout: string; stderr: string });
  }

  it('says which variable to set, or what is wrong with the file, without a stack trace', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'targets: []\n');
    const [missing, invalid] = await Promise.all([synth({}), synth({ STS_VOLUME_GITOPS_CONFIG: bad })]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^no configuration file: set STS_VOLUME_GITOPS_CONFIG to the tool's configuration/);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, new RegExp(`^configuration error in ${bad}:\\n {2}- `));
    for (const answer of [missing, invalid]) assert.doesNotMatch(answer.stderr, /ENOENT|\n\s+at /);
  });

  it('says which alarm variable to set, or what is wrong with a setting, without a stack trace', async () => {
    const config = fileURLToPath(new URL('../../infra/k8s/example-config.yaml', import.meta.url));
    const [noAlarms, retention] = await Promise.all([
      synth({ STS_VOLUME_GITOPS_CONFIG: config }),
      synth({ STS_VOLUME_GITOPS_CONFIG: config, STS_ALARM_EMAIL: 'ops@example.com', STS_LOG_RETENTION_DAYS: '10' }),
    ]);
    assert.equal(noAlarms.code, 1);
    assert.equal(noAlarms.stderr, 'the alarms notify nobody: set STS_ALARM_EMAIL (an address to subscribe) or STS_ALARM_TOPIC_ARN (an existing SNS topic); see infra/README.md\n');
    assert.equal(retention.code, 1);
    assert.equal(retention.stderr, 'STS_LOG_RETENTION_DAYS must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, ...), got 10\n');
  });

  it('says a cluster in another region than the stack\'s as a message with what to do, not a stack trace (issue 37 item 7)', async () => {
    const config = fileURLToPath(new URL('../../infra/k8s/example-config.yaml', import.meta.url));
    const elsewhere = await synth({ STS_VOLUME_GITOPS_CONFIG: config, STS_ALARM_EMAIL: 'ops@example.com', CDK_DEFAULT_REGION: 'us-east-1' });
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /^EKS cluster prod-eu is in eu-west-1, but this stack deploys to us-east-1 \(AWS_REGION, or the AWS profile's region\): its access entry is made in the cluster's region\. Deploy with AWS_REGION=eu-west-1; clusters in several regions take one stack per region/);
    assert.doesNotMatch(elsewhere.stderr, /\n\s+at /);
  });
});
