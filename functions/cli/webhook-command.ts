// `sts-volume-gitops webhook --port N`: the webhook for local development. Point a GitHub webhook (or the GitHub
// sandbox's `webhooks.subscribe`) at it; pull requests are validated (no cluster write) and pushes to a target's
// branch reconciled, in this process.
import { hostname } from 'node:os';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { runTargets } from '../app/run-targets.ts';
import { startLocalWebhookServer } from '../app/local-webhook-server.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { reportUsageError } from './usage-errors.ts';
import { ownAccountOfThisMachine } from './eks-access.ts';
import { progressLine, writeErr, writeOut } from './terminal.ts';
import { printable, printableJson } from '../domain/printable.ts';

export async function webhookCommand(args: string[]): Promise<number> {
  const line = readCommandLine(commandTable.webhook, args);
  if (typeof line === 'number') return line;
  const { values } = line;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port ?? '') || port > 65535) {
    writeErr(`--port must be a port number (0 for any free one), got ${printable(values.port ?? 'nothing')}\n`);
    return 2;
  }
  const secretVariable = values['secret-env'] ?? 'GITHUB_WEBHOOK_SECRET';
  const secret = process.env[secretVariable];
  if (!secret) {
    writeErr(`environment variable ${printable(secretVariable)} must hold the webhook secret (the one GitHub signs with)\n`);
    return 2;
  }
  let config;
  try {
    config = await loadResolvedConfig(values.config, process.env, ownAccountOfThisMachine);
  } catch (error) {
    const code = reportUsageError(error);
    if (code === undefined) throw error;
    return code;
  }
  const log = (level: string, message: string, fields: Record<string, unknown>): void => {
    writeErr(`${level} ${printable(message)} ${printableJson(fields)}\n`);
  };
  const server = await startLocalWebhookServer({
    port, config, secret, log,
    run: async (message) => {
      const [run] = await runTargets(config, {
        mode: message.action === 'validate' ? 'validate' : 'apply', targetName: message.target,
        ...(message.mergeGroup ? { mergeGroup: message.mergeGroup } : {}), ...(message.pullRequest !== undefined ? { pullRequest: message.pullRequest } : {}),
        holderIdentity: `cli-webhook-${hostname()}-${process.pid}`,
        onEvent: (target, line) => writeErr(progressLine(target, line)),
      });
      log(run?.error !== undefined ? 'error' : 'info', `${message.action} ${message.target}: ${run?.error ?? run?.report?.outcome ?? '?'}`, { trigger: message.trigger });
    },
  });
  writeOut(`listening on ${server.url} (secret from $${secretVariable}); Ctrl-C to stop\n`);
  await new Promise<void>((done) => process.once('SIGINT', () => done()));
  await server.close();
  return 0;
}
