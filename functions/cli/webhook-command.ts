// `npx sts-volume-gitops webhook --port N`: the webhook for local development. Point a GitHub webhook (or the GitHub
// sandbox: `sandbox --webhook URL`) at it; pull requests and merge queue commits are validated (no cluster write),
// checks re-run, and pushes to a target's branch reconciled, in this process (local-webhook-runs.ts).
import { loadConfig } from '../domain/config.ts';
import { minimumWebhookSecretLength, webhookSecretProblem } from '../domain/webhook-secret.ts';
import { startLocalWebhookServer } from '../app/local-webhook-server.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { eksNotes, notRunHere, runLocally, runVerdictLine } from './local-webhook-runs.ts';
import { reportUsageError } from './usage-errors.ts';

/** The variable the secret is read from unless --webhook-secret-env names another. */
export const defaultWebhookSecretVariable = 'GITHUB_WEBHOOK_SECRET';

export async function webhookCommand(args: string[]): Promise<number> {
  const line = readCommandLine(commandTable.webhook, args);
  if (typeof line === 'number') return line;
  const { values } = line;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port ?? '') || port > 65535) {
    process.stderr.write(`--port must be a port number (0 for any free one), got ${values.port ?? 'nothing'}\n`);
    return 2;
  }
  if (values['secret-env'] !== undefined) process.stderr.write('warning: --secret-env is deprecated: use --webhook-secret-env, the name check takes too\n');
  const secretVariable = values['webhook-secret-env'] ?? values['secret-env'] ?? defaultWebhookSecretVariable;
  const secret = process.env[secretVariable];
  // The rule check applies (domain/webhook-secret.ts): a secret check refuses is refused here too.
  const problem = webhookSecretProblem(secret);
  if (problem !== undefined || secret === undefined) {
    process.stderr.write(`$${secretVariable} ${problem ?? ''}: export ${secretVariable}=<the secret GitHub signs with, ${minimumWebhookSecretLength} characters or more>\n`);
    return 2;
  }
  let config;
  try {
    config = await loadConfig(values.config);
  } catch (error) {
    const code = reportUsageError(error);
    if (code === undefined) throw error;
    return code;
  }
  const log = (level: string, message: string, fields: Record<string, unknown> = {}): void => {
    process.stderr.write(`${level} ${message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}\n`);
  };
  const loaded = config;
  // Listened for before anything starts, so a Ctrl-C at any point closes the server.
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((done) => { stop = done; });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const server = await startLocalWebhookServer({
    port, config, secret, log,
    refuse: (message) => notRunHere(loaded, message),
    run: async (message) => {
      const run = await runLocally(loaded, message, (target, text) => process.stderr.write(`[${target}] ${text}\n`));
      const verdict = runVerdictLine(message, run);
      log(verdict.level, verdict.text, { trigger: message.trigger });
    },
  });
  for (const note of eksNotes(config)) process.stderr.write(`${note}\n`);
  process.stdout.write(`listening on ${server.url} (secret from $${secretVariable}); Ctrl-C to stop\n`);
  await stopped;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await server.close();
  return 0;
}
