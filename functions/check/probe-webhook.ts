// The webhook's secret, when a webhook is deployed: the stack gives the webhook Lambda the secret's ARN in
// STS_VOLUME_GITOPS_WEBHOOK_SECRET (read here through Secrets Manager, as the webhook reads it); for the local webhook
// (`sts-volume-gitops webhook`), --webhook-secret-env names the variable holding it. Neither: no webhook to check.
import { awsSetupFailureOf, awsSetupFix } from '../adapters/aws/aws-setup-failure.ts';
import { webhookSecretFromSecret } from '../adapters/github/secrets.ts';
import { webhookSecretVariable as deployedWebhookSecretVariable } from '../lambda/webhook.ts';
import { error, ok, type CheckResult } from './check-result.ts';
import { minimumWebhookSecretLength, webhookSecretProblem } from '../domain/webhook-secret.ts';

export interface WebhookProbeOptions {
  env: NodeJS.ProcessEnv;
  /** The variable the local webhook reads its secret from (`webhook --webhook-secret-env`), when one is run. */
  localSecretVariable?: string;
  /** Reads a Secrets Manager secret's text. */
  readSecret?: (id: string) => Promise<string>;
}

export async function probeWebhook(options: WebhookProbeOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const secretId = options.env[deployedWebhookSecretVariable];
  if (secretId !== undefined && secretId !== '') {
    if (!options.readSecret) {
      results.push(error('webhook.secret', secretId, 'cannot read Secrets Manager from here', 'run check where AWS credentials can read the secret'));
    } else {
      try {
        webhookSecretFromSecret(secretId, await options.readSecret(secretId));
        results.push(ok('webhook.secret', secretId, 'the deployed webhook\'s secret is set'));
      } catch (cause) {
        const message = cause instanceof Error ? cause.message : String(cause);
        const setup = awsSetupFailureOf(cause);
        results.push(setup
          ? error('webhook.secret', secretId, message, awsSetupFix(setup, `secretsmanager:GetSecretValue on ${secretId}`))
          : error('webhook.secret', secretId, `the deployed webhook cannot check signatures: ${message}`,
            `put {"webhookSecret": "<the secret entered in the GitHub webhook settings, ${minimumWebhookSecretLength} characters or more>"} in the secret (infra/README.md)`));
      }
    }
  }
  const variable = options.localSecretVariable;
  if (variable !== undefined) {
    const problem = webhookSecretProblem(options.env[variable]);
    results.push(problem === undefined
      ? ok('webhook.secret', `$${variable}`, 'the local webhook\'s secret is set')
      : error('webhook.secret', `$${variable}`, problem,
        `export ${variable}=<the secret entered in the GitHub webhook settings, ${minimumWebhookSecretLength} characters or more>`));
  }
  if (results.length === 0) {
    results.push(ok('webhook.secret', 'webhook', `no webhook to check here (${deployedWebhookSecretVariable} is not set and no --webhook-secret-env was given)`));
  }
  return results;
}
