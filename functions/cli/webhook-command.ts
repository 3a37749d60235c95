// `sts-volume-gitops webhook --port N`: the webhook for local development. Point a GitHub webhook (or the GitHub
// sandbox's `webhooks.subscribe`) at it; pull requests are validated (no cluster write) and pushes to a target's
// branch reconciled, in this process.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../domain/config.ts';
import { runTargets } from '../app/run-targets.ts';
import { startLocalWebhookServer } from '../app/local-webhook-server.ts';

export async function webhookCommand(args: string[], usage: string): Promise<number> {
  let values: { config?: string; port?: string; 'secret-env'?: string };
  try {
    values = parseArgs({ args, options: { config: { type: 'string' }, port: { type: 'string' }, 'secret-env': { type: 'string' } }, strict: true }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be a port number (0 for any free one), got ${values.port ?? 'nothing'}\n${usage}\n`);
    return 2;
  }
  const secretVariable = values['secret-env'] ?? 'GITHUB_WEBHOOK_SECRET';
  const secret = process.env[secretVariable];
  if (!secret) {
    process.stderr.write(`environment variable ${secretVariable} must hold the webhook secret (the one GitHub signs with)\n`);
    return 2;
  }
  let config;
  try {
    config = await loadConfig(values.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error:\n${error.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 2;
  }
  const log = (level: string, message: string, fields: Record<string, unknown>): void => {
    process.stderr.write(`${level} ${message} ${JSON.stringify(fields)}\n`);
  };
  const server = await startLocalWebhookServer({
    port, config, secret, log,
    run: async (message) => {
      const [run] = await runTargets(config, {
        mode: message.action === 'validate' ? 'validate' : 'apply', targetName: message.target,
        ...(message.mergeGroup ? { mergeGroup: message.mergeGroup } : {}), ...(message.pullRequest !== undefined ? { pullRequest: message.pullRequest } : {}),
        holderIdentity: `cli-webhook-${hostname()}-${process.pid}`,
        onEvent: (target, line) => process.stderr.write(`[${target}] ${line}\n`),
      });
      log(run?.error !== undefined ? 'error' : 'info', `${message.action} ${message.target}: ${run?.error ?? run?.report?.outcome ?? '?'}`, { trigger: message.trigger });
    },
  });
  process.stdout.write(`listening on ${server.url} (secret from $${secretVariable}); Ctrl-C to stop\n`);
  await new Promise<void>((done) => process.once('SIGINT', () => done()));
  await server.close();
  return 0;
}
