// `npx sts-volume-gitops sandbox`: both sandboxes seeded from examples/ (or one of them alone), printing how to reach
// them and a ready-to-use config file (sandbox-serve.ts); `sandbox pr ...` drives the GitHub sandbox's pull requests
// (sandbox-pr-command.ts). Runs until interrupted; the Kubernetes controllers advance on a timer.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseServerVersion, ServerVersionError } from '../../sandbox/kube/server-version.ts';
import { webhookSecretProblem } from '../domain/webhook-secret.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { printCliError, reportUsageError } from './usage-errors.ts';
import { sandboxPullRequestCommand } from './sandbox-pr-command.ts';
import { serveSandboxes, type SandboxWebhook } from './sandbox-serve.ts';
import { defaultWebhookSecretVariable } from './webhook-command.ts';
import { writeErr } from './terminal.ts';
import { printable } from '../domain/printable.ts';

export async function sandboxCommand(args: string[]): Promise<number> {
  if (args[0] === 'pr') return sandboxPullRequestCommand(args.slice(1));
  const line = readCommandLine(commandTable.sandbox, args);
  if (typeof line === 'number') return line;
  const { values } = line;
  const which = line.positional === 'kube' || line.positional === 'github' ? line.positional : undefined;
  const refuse = (message: string): 2 => {
    printCliError({ kind: 'usage', message }, values.json === true);
    return 2;
  };
  if (values.version !== undefined && which === 'github') {
    return refuse('--version chooses the Kubernetes version: it applies to `sandbox` and `sandbox kube`, not `sandbox github`');
  }
  if (values.version !== undefined) {
    try {
      parseServerVersion(values.version);
    } catch (error) {
      if (!(error instanceof ServerVersionError)) throw error;
      return refuse(`--version: ${error.message}`);
    }
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    return refuse(`--port must be a port number, not ${values.port}`);
  }
  if (port !== undefined && which === undefined) {
    return refuse('--port is the port of a sandbox started alone (`sandbox kube` or `sandbox github`); both sandboxes take free ports');
  }
  const tickMs = Number(values['tick-ms'] ?? 1000);
  if (!Number.isInteger(tickMs) || tickMs < 1) {
    return refuse(`--tick-ms must be a whole number of milliseconds, not ${values['tick-ms'] ?? ''}`);
  }
  const webhook = values.webhook === undefined ? undefined : webhookOf(values.webhook, values['webhook-secret-env']);
  if (typeof webhook === 'string') return refuse(webhook);
  if (webhook !== undefined && which === 'kube') return refuse('--webhook delivers the GitHub sandbox\'s events: it applies to `sandbox` and `sandbox github`, not `sandbox kube`');
  const closers: Array<() => Promise<void>> = [];
  const workDir = await mkdtemp(join(tmpdir(), 'sts-volume-gitops-sandbox-'));
  // Interrupted at any point, even while starting, the sandboxes are closed and the folder, which holds the record key
  // and the kubeconfigs' tokens, is removed.
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((done) => { stop = done; });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await serveSandboxes({ which, values, port, tickMs, workDir, closers, webhook });
    await stopped;
  } catch (error) {
    // A seed's sandbox-target.yaml in error is said as a configuration file's would be.
    const code = reportUsageError(error, values.json === true);
    if (code !== undefined) return code;
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return refuse(`--port ${values.port ?? ''}: the port is in use; choose another (0 takes any free port)`);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    for (const close of closers.reverse()) await close().catch((error: unknown) => writeErr(`warning: ${printable((error as Error).message)}\n`));
    await rm(workDir, { recursive: true, force: true });
  }
  return 0;
}

/**
 * Where `--webhook` delivers and what signs it: the secret in the variable named (GITHUB_WEBHOOK_SECRET, which the
 * `webhook` command reads by default), held to the webhook's own rule, or one generated for this sandbox when it is
 * unset; or why not.
 */
function webhookOf(url: string, variable: string | undefined): SandboxWebhook | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `--webhook must be a URL such as http://127.0.0.1:8080/, not ${JSON.stringify(url)}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `--webhook must be an http or https URL, not ${JSON.stringify(url)}`;
  const secretVariable = variable ?? defaultWebhookSecretVariable;
  const given = process.env[secretVariable];
  if (given === undefined || given === '') return { url: parsed.toString(), secret: randomBytes(24).toString('hex'), secretVariable };
  const problem = webhookSecretProblem(given);
  return problem === undefined ? { url: parsed.toString(), secret: given, secretVariable } : `$${secretVariable} ${problem}`;
}
