// `sts-volume-gitops check`: what is missing before anything runs, per target
// (functions/check/), without writing anything. Exit codes as `plan`: 0 nothing wrong (warnings allowed), 1 a check
// found an error, 2 bad usage or configuration. With --json, the report and its counts (or the error) on stdout.
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { selectTargets } from '../app/select-targets.ts';
import { checkTarget, type CheckOptions } from '../check/check-target.ts';
import { error, exitCodeOfChecks, type TargetCheck } from '../check/check-result.ts';
import { probeWebhook } from '../check/probe-webhook.ts';
import { countResults, renderCheckReport, type CheckReport } from './render-check.ts';
import { printCliError, usageErrorOf } from './usage-errors.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { eksFromThisMachine, ownAccountOfThisMachine } from './eks-access.ts';
import { jsonText, writeOut, type Write } from './terminal.ts';

export interface CheckCommandOptions extends CheckOptions {
  /** A Secrets Manager secret's text (the webhook's); the CLI reads Secrets Manager with the machine's AWS credentials. */
  readSecretText?: (id: string) => Promise<string>;
}

export async function checkCommand(args: string[], options: CheckCommandOptions = {}, out: Write = writeOut): Promise<number> {
  const line = readCommandLine(commandTable.check, args, out);
  if (typeof line === 'number') return line;
  const { values } = line;
  const env = options.env ?? process.env;
  let report: CheckReport;
  try {
    const config = await loadResolvedConfig(values.config, env, ownAccountOfThisMachine);
    const targets = selectTargets(config, values.target);
    const aws = options.readSecret && options.readSecretText ? undefined : await awsSecrets();
    const readSecret = options.readSecret ?? aws?.readGitHubPrivateKey;
    const readSecretText = options.readSecretText ?? aws?.readString;
    // EKS targets are reached with this machine's AWS credentials: what they may do is what check reports.
    const eksKubeConfig = options.eksKubeConfig ?? eksFromThisMachine('sts-volume-gitops-check');
    const checks: TargetCheck[] = [];
    for (const target of targets) {
      // Loaded on use, like the AWS reader: the demo runs check without loading the Secrets Manager client.
      const readRecordKey = readSecretText
        ? async (id: string) => (await import('../lambda/record-key-secret.ts')).recordKeyFromSecret(id, await readSecretText(id))
        : undefined;
      checks.push(await checkTarget(target, { env, ...(readSecret ? { readSecret } : {}), ...(readRecordKey ? { readRecordKey } : {}), ...(readSecretText ? { readSecretText } : {}), eksKubeConfig }).catch((cause: unknown) => ({
        target: target.name, results: [error('check', target.name, `the check itself failed: ${cause instanceof Error ? cause.message : String(cause)}`)],
      })));
    }
    const webhook = await probeWebhook({ env, ...(readSecretText ? { readSecret: readSecretText } : {}), ...(values['webhook-secret-env'] !== undefined ? { localSecretVariable: values['webhook-secret-env'] } : {}) });
    report = { targets: checks, webhook };
  } catch (cause) {
    const usageError = usageErrorOf(cause);
    if (usageError === undefined) throw cause;
    // The JSON a script reads has the report's shape even then: no target checked, the configuration's problems counted.
    printCliError(usageError, values.json === true, out, { targets: [], webhook: [], counts: { error: usageError.problems?.length ?? 1, warning: 0, ok: 0 } });
    return 2;
  }
  out(values.json ? jsonText({ ...report, counts: countResults(report) }) : renderCheckReport(report));
  return exitCodeOfChecks([...report.targets, { target: 'webhook', results: report.webhook }]);
}

/** Secrets Manager for App keys and the webhook secret named in the config or environment (AWS credentials needed). */
async function awsSecrets(): Promise<{ readString: (id: string) => Promise<string>; readGitHubPrivateKey: (id: string) => Promise<string> }> {
  const { SecretReader } = await import('../adapters/github/secrets.ts');
  const reader = new SecretReader();
  return { readString: (id) => reader.readString(id), readGitHubPrivateKey: (id) => reader.readGitHubPrivateKey(id) };
}
