// `npx sts-volume-gitops webhook --port N`: the webhook for local development. Point a GitHub webhook (or the GitHub
// sandbox: `sandbox --webhook URL`) at it; pull requests and merge queue commits are validated (no cluster write),
// checks re-run, and pushes to a target's branch reconciled, in this process (local-webhook-runs.ts).
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { minimumWebhookSecretLength, webhookSecretProblem } from '../domain/webhook-secret.ts';
import { startLocalWebhookServer } from '../app/local-webhook-server.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { eksNotes, notRunHere, runLocally, runVerdictLine } from './local-webhook-runs.ts';
import { reportUsageError } from './usage-errors.ts';
import { ownAccountOfThisMachine } from './eks-access.ts';
import { progressLine, writeErr, writeOut } from './terminal.ts';
import { printable, printableJson } from '../domain/printable.ts';

/** The variable the secret is read from unless --webhook-secret-env names another. */
export const defaultWebhookSecretVariable = 'GITHUB_WEBHOOK_SECRET';

export async function webhookCommand(args: string[]): Promise<number> {
  const line = readCommandLine(commandTable.webhook, args);
  if (typeof line === 'number') return line;
  const { values } = line;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port ?? '') || port > 65535) {
    writeErr(`--port must be a port number (0 for any free one), got ${printable(values.port ?? 'nothing')}\n`);
    return 2;
  }
  if (values['secret-env'] !== undefined) writeErr('warning: --secret-env is deprecated: use --webhook-secret-env, the name check takes too\n');
  const secretVariable = values['webhook-secret-env'] ?? values['secret-env'] ?? defaultWebhookSecretVariable;
  const secret = process.env[secretVariable];
  // The rule check applies (domain/webhook-secret.ts): a secret check refuses is refused here too.
  const problem = webhookSecretProblem(secret);
  if (problem !== undefined || secret === undefined) {
    writeErr(`$${printable(secretVariable)} ${problem ?? ''}: export ${printable(secretVariable)}=<the secret GitHub signs with, ${minimumWebhookSecretLength} characters or more>\n`);
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
  const log = (level: string, message: string, fields: Record<string, unknown> = {}): void => {
    writeErr(`${level} ${printable(message)}${Object.keys(fields).length > 0 ? ` ${printableJson(fields)}` : ''}\n`);
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
      const run = await runLocally(loaded, message, (target, text) => writeErr(progressLine(target, text)));
      const verdict = runVerdictLine(message, run);
      log(verdict.level, verdict.text, { trigger: message.trigger });
    },
  });
  for (const note of eksNotes(config)) writeErr(`${printable(note)}\n`);
  writeOut(`listening on ${server.url} (secret from $${printable(secretVariable)}); Ctrl-C to stop\n`);
  await stopped;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await server.close();
  return 0;
}
