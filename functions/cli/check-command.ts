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
import { eksAuthenticationModeFromThisMachine, eksFromThisMachine, ownAccountOfThisMachine } from './eks-access.ts';
import { jsonText, stdoutStream, writeOut, type Write } from './terminal.ts';
import { terminalStyle } from './terminal-style.ts';

export interface CheckCommandOptions extends CheckOptions {
  /** A Secrets Manager secret's text (the webhook's); the CLI reads Secrets Manager with the machine's AWS credentials. */
  readSecretText?: (id: string) => Promise<string>;
  /** Where the text goes, for its style (a terminal: short lines, colour): stdout unless `out` is given. */
  stdout?: { isTTY?: boolean; columns?: number };
}

export async function checkCommand(args: string[], options: CheckCommandOptions = {}, out?: Write): Promise<number> {
  const stdout = options.stdout ?? (out ? {} : stdoutStream());
  out ??= writeOut;
  const line = readCommandLine(commandTable.check, args, out);
  if (typeof line === 'number') return line;
  const { values } = line;
  const env = options.env ?? process.env;
  let report: CheckReport;
  try {
    const config = await loadResolvedConfig(values.config, env, ownAccountOfThisMachine);
    const targets = selectTargets(config, values.target);
    const aws = options.readSecret && options.readSecretText ? undefined : await awsSecrets();
    // EKS targets are reached with this machine's AWS credentials: what they may do is what check reports.
    const eksKubeConfig = options.eksKubeConfig ?? eksFromThisMachine('sts-volume-gitops-check');
    const eksAuthenticationMode = options.eksAuthenticationMode ?? eksAuthenticationModeFromThisMachine('sts-volume-gitops-check');
    const checks: TargetCheck[] = [];
    for (const target of targets) {
      // The stack's secrets are in its region, which is the region of its EKS clusters (infra/eks-access.ts).
      const region = 'eks' in target.cluster ? target.cluster.eks.region : undefined;
      const readSecret = options.readSecret ?? (aws ? (id: string) => aws.readGitHubPrivateKey(id, region) : undefined);
      const readSecretText = options.readSecretText ?? (aws ? (id: string) => aws.readString(id, region) : undefined);
      // Loaded on use, like the AWS reader: the demo runs check without loading the Secrets Manager client.
      const readRecordKey = readSecretText
        ? async (id: string) => (await import('../lambda/record-key-secret.ts')).recordKeyFromSecret(id, await readSecretText(id))
        : undefined;
      checks.push(await checkTarget(target, { env, ...(readSecret ? { readSecret } : {}), ...(readRecordKey ? { readRecordKey } : {}), ...(readSecretText ? { readSecretText } : {}), eksKubeConfig, eksAuthenticationMode }).catch((cause: unknown) => ({
        target: target.name, results: [error('check', target.name, `the check itself failed: ${cause instanceof Error ? cause.message : String(cause)}`)],
      })));
    }
    const readWebhookSecret = options.readSecretText ?? (aws ? (id: string) => aws.readString(id, undefined) : undefined);
    const webhook = await probeWebhook({ env, ...(readWebhookSecret ? { readSecret: readWebhookSecret } : {}), ...(values['webhook-secret-env'] !== undefined ? { localSecretVariable: values['webhook-secret-env'] } : {}) });
    report = { targets: checks, webhook };
  } catch (cause) {
    const usageError = usageErrorOf(cause);
    if (usageError === undefined) throw cause;
    // The JSON a script reads has the report's shape even then: no target checked, the configuration's problems counted.
    printCliError(usageError, values.json === true, out, { targets: [], webhook: [], counts: { error: usageError.problems?.length ?? 1, warning: 0, ok: 0 } });
    return 2;
  }
  out(values.json ? jsonText({ ...report, counts: countResults(report) })
    : renderCheckReport(report, { style: terminalStyle(stdout, env, { verbose: values.verbose === true }), quiet: values.quiet === true }));
  return exitCodeOfChecks([...report.targets, { target: 'webhook', results: report.webhook }]);
}

type ReadInRegion = (id: string, targetRegion: string | undefined) => Promise<string>;

/**
 * Secrets Manager for App keys, record keys and the webhook secret named in the config or environment (AWS credentials
 * needed), asked in the region of the secret: the one its ARN names, else the target's cluster's (where the stack
 * deploys and creates its secrets), else this machine's (AWS_REGION, the profile).
 */
async function awsSecrets(): Promise<{ readString: ReadInRegion; readGitHubPrivateKey: ReadInRegion }> {
  const { SecretReader } = await import('../adapters/github/secrets.ts');
  const readers = new Map<string, InstanceType<typeof SecretReader>>();
  const readerFor = (id: string, targetRegion: string | undefined): InstanceType<typeof SecretReader> => {
    const region = /^arn:[^:]+:secretsmanager:([^:]+):/.exec(id)?.[1] ?? targetRegion;
    const key = region ?? '';
    const reader = readers.get(key) ?? new SecretReader(region !== undefined ? { clientConfig: { region } } : {});
    readers.set(key, reader);
    return reader;
  };
  return {
    readString: (id, region) => readerFor(id, region).readString(id),
    readGitHubPrivateKey: (id, region) => readerFor(id, region).readGitHubPrivateKey(id),
  };
}
