// `npx cdk synth` / `npx cdk deploy` entry. Configure with environment variables (see infra/README.md); the clusters
// and secrets come from the tool's configuration file ($STS_VOLUME_GITOPS_CONFIG, as for the CLI). Synth runs the
// cdk-nag packs the stack test holds it to, so a finding neither fixed nor acknowledged (with its reason) stops a deploy
// too.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, NIST80053R5Checks, ServerlessChecks } from 'cdk-nag';
import { StsVolumeGitopsStack } from './stack.ts';
import { readableStackConfigFile } from './config-file.ts';
import { appEnvironmentProblems } from './app-environment.ts';

const env = process.env;
// A missing or invalid configuration, or setting, stops synth with what to do, as the CLI says it, not a stack trace.
const config = readableStackConfigFile(env, process.cwd());
if ('problem' in config) {
  process.stderr.write(`${config.problem}\n`);
  process.exit(1);
}
for (const warning of config.warnings) process.stderr.write(`warning: ${warning}\n`);
const problems = appEnvironmentProblems(env);
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
const number = (name: string): number | undefined => (env[name] ? Number(env[name]) : undefined);
const app = new App();
const everyMinutes = number('STS_EVERY_MINUTES');
const flexibleWindowMinutes = number('STS_FLEXIBLE_WINDOW_MINUTES');
const logRetentionDays = number('STS_LOG_RETENTION_DAYS');
const workerConcurrency = number('STS_WORKER_CONCURRENCY');
const webhookConcurrency = number('STS_WEBHOOK_CONCURRENCY');
new StsVolumeGitopsStack(app, 'StsVolumeGitops', {
  env: { account: env.CDK_DEFAULT_ACCOUNT, region: env.CDK_DEFAULT_REGION },
  configFile: config.file,
  ...(everyMinutes !== undefined ? { everyMinutes } : {}),
  ...(flexibleWindowMinutes !== undefined ? { flexibleWindowMinutes } : {}),
  ...(logRetentionDays !== undefined ? { logRetention: logRetentionDays } : {}),
  ...(env.STS_GITHUB_SECRET_ARN ? { githubSecretArn: env.STS_GITHUB_SECRET_ARN } : {}),
  // One is required: synth fails without someone to notify.
  ...(env.STS_ALARM_EMAIL ? { alarmEmail: env.STS_ALARM_EMAIL } : {}),
  ...(env.STS_ALARM_TOPIC_ARN ? { alarmTopicArn: env.STS_ALARM_TOPIC_ARN } : {}),
  ...(workerConcurrency !== undefined ? { workerConcurrency } : {}),
  ...(webhookConcurrency !== undefined ? { webhookConcurrency } : {}),
  ...(env.STS_WEBHOOK_SECRET_ARN ? { webhookSecretArn: env.STS_WEBHOOK_SECRET_ARN } : {}),
  ...(env.STS_METRICS_NAMESPACE ? { metricsNamespace: env.STS_METRICS_NAMESPACE } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app), new NIST80053R5Checks(app));
