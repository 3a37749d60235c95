// `sts-volume-gitops sandbox`: both sandboxes seeded from examples/ (or one of them alone), printing how to reach them
// and a ready-to-use config file. Runs until interrupted; the Kubernetes controllers advance on a timer.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startGitHubSandbox } from '../../sandbox/github/index.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { parseServerVersion, ServerVersionError } from '../../sandbox/kube/server-version.ts';
import { defaultRbacGroup, rbacObjects } from '../app/rbac-manifest.ts';
import { parseConfig, type PriceConfig, type SizeSourceConfig } from '../domain/config.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine, type FlagValues } from './command-line.ts';
import { printCliError, reportUsageError } from './usage-errors.ts';
import { unitPrice } from '../domain/spelling.ts';
import { exampleSeedTarget, examplesFolder, readSeedTarget, seedTargetFile } from './sandbox-seed.ts';

const examples = examplesFolder;

/** The example repository's chart values (examples/gitops-repo/apps/victoria-logs) mapped to the StatefulSet it renders. */
export const exampleSizeSources: readonly SizeSourceConfig[] = exampleSeedTarget.sizeSources;

/**
 * Figures per GiB-month for the example cluster's classes (examples/cluster-seed.yaml), so that plans, pull request
 * checks and recovery pull requests on the sandboxes say what a change costs, as they do with `prices` configured.
 */
export const examplePrices: PriceConfig = exampleSeedTarget.prices ?? { currency: 'USD', perGiBMonth: {} };

/** `standard 0.1 USD per GiB-month, capped 0.125 USD per GiB-month`. */
export function describePrices(prices: PriceConfig): string {
  return Object.entries(prices.perGiBMonth).map(([klass, price]) => `${klass} ${unitPrice(price, prices.currency)}`).join(', ');
}

/** The variable the sandbox config names for the recreation record key by default (tests put a fresh key in it). */
export const sandboxRecordKeyVariable = 'STS_SANDBOX_RECORD_KEY';

/** A fresh record key, as an environment for the default sandbox config. */
export function sandboxRecordKeyEnv(): Record<string, string> {
  return { [sandboxRecordKeyVariable]: generateRecordKey() };
}

/** 32 random bytes, base64: what `openssl rand -base64 32` prints. */
export function generateRecordKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * Where the deployment keeps its record key and its Lease and records. By default: the key in $STS_SANDBOX_RECORD_KEY,
 * and the state in `default` (a sandbox without the RBAC manifest has no sts-volume-gitops namespace). The demo and the
 * `sandbox` command apply the manifest, so they use the real default (`stateNamespace: undefined`) and a key file.
 */
export interface SandboxDeployment {
  recordKey: { env: string } | { file: string };
  stateNamespace: string | undefined;
  /** The sandbox's GitHub App instead of the token (its verdicts are then check runs), its key in `keyVariable`. */
  app?: { appId: number; installationId: number; keyVariable: string };
  /** Prices per GiB-month of the sandbox's StorageClasses: plans and recovery pull requests then say what a change costs. */
  prices?: PriceConfig;
}

export function sandboxConfig(
  kubeconfigPath: string, githubUrl: string, tokenVariable: string, sizeSources: readonly SizeSourceConfig[] = [],
  deployment: SandboxDeployment = { recordKey: { env: sandboxRecordKeyVariable }, stateNamespace: 'default' },
): string {
  const recordKey = 'env' in deployment.recordKey ? `{ env: ${deployment.recordKey.env} }` : `{ file: ${JSON.stringify(deployment.recordKey.file)} }`;
  const state = deployment.stateNamespace === undefined ? '' : `state: ${deployment.stateNamespace}, `;
  const credential = deployment.app
    ? `app: { appId: ${deployment.app.appId}, installationId: ${deployment.app.installationId}, privateKey: { env: ${deployment.app.keyVariable} } }`
    : `token: { env: ${tokenVariable} }`;
  const prices = deployment.prices
    ? `    prices: { currency: ${deployment.prices.currency}, perGiBMonth: { ${Object.entries(deployment.prices.perGiBMonth).map(([k, v]) => `${k}: ${v}`).join(', ')} } }\n` : '';
  const mappings = sizeSources.length === 0 ? ''
    : `    sizeSources:\n${sizeSources.map((s) => `      - { file: ${JSON.stringify(s.file)}, path: ${JSON.stringify(s.path)}, statefulSet: ${s.statefulSet}, template: ${s.template}${s.value ? `, value: ${s.value}` : ''} }\n`).join('')}`;
  return `targets:
  - name: demo
    source:
      github:
        owner: acme
        repo: platform-gitops
        branch: main
        paths: ["k8s/**/*.yaml"]
        apiUrl: ${githubUrl}
        ${credential}
    cluster:
      kubeconfig: { path: ${JSON.stringify(kubeconfigPath)} }
    namespaces: { default: default, ${state}allow: [db, cache, analytics] }
    recordKey: ${recordKey}
    pullRequests: { validate: true, recovery: true }
${prices}${mappings}`;
}

type SandboxValues = FlagValues<typeof commandTable.sandbox>;

export async function sandboxCommand(args: string[]): Promise<number> {
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
  const closers: Array<() => Promise<void>> = [];
  const workDir = await mkdtemp(join(tmpdir(), 'sts-volume-gitops-sandbox-'));
  // Interrupted at any point, even while starting, the sandboxes are closed and the folder, which holds the record key
  // and the kubeconfigs' tokens, is removed.
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((done) => { stop = done; });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await serveSandboxes({ which, values, port, tickMs, workDir, closers });
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
    for (const close of closers.reverse()) await close().catch((error: unknown) => process.stderr.write(`warning: ${(error as Error).message}\n`));
    await rm(workDir, { recursive: true, force: true });
  }
  return 0;
}

/** Starts the sandboxes asked for in `workDir`, adding how to close each to `closers`, and prints how to reach them. */
async function serveSandboxes(input: {
  which: 'kube' | 'github' | undefined; values: SandboxValues; port: number | undefined; tickMs: number; workDir: string; closers: Array<() => Promise<void>>;
}): Promise<void> {
  const { which, values, port, tickMs, workDir, closers } = input;
  const info: Record<string, string> = {};
  let kubeSandbox: KubeSandbox | undefined;
  if (which !== 'github') {
    const seedFile = which === 'kube' ? values.seed : undefined;
    const kube = await startKubeSandbox({
      ...(port !== undefined && which === 'kube' ? { port } : {}),
      seedFile: seedFile ? resolve(seedFile) : join(values.seed && which === undefined ? resolve(values.seed) : examples, 'cluster-seed.yaml'),
      workDir: join(workDir, 'kube'),
      ...(values.version !== undefined ? { version: values.version } : {}),
    });
    kube.startTimer(tickMs);
    // A seed written for a newer server (the examples, on --version 1.26) starts without what this one does not serve.
    for (const warning of kube.seedWarnings) process.stderr.write(`warning: kube sandbox seed: ${warning}\n`);
    kubeSandbox = kube;
    closers.push(() => kube.close());
    info.kubernetesUrl = kube.url;
    info.kubernetesVersion = kube.server.gitVersion;
    info.kubeconfig = kube.kubeconfigPath;
  }
  if (which !== 'kube') {
    const seedDir = which === 'github' ? values.seed : undefined;
    const github = await startGitHubSandbox({
      ...(port !== undefined && which === 'github' ? { port } : {}),
      seedDir: seedDir ? resolve(seedDir) : join(values.seed && which === undefined ? resolve(values.seed) : examples, 'gitops-repo'),
      workDir: join(workDir, 'github'),
    });
    closers.push(() => github.close());
    info.githubUrl = github.url;
    info.githubToken = github.token;
    info.repository = `${github.owner}/${github.repo}`;
  }
  if (kubeSandbox && info.githubUrl) {
    info.config = join(workDir, 'config.yaml');
    // The tool gets what it gets on a real cluster: a user in the group the RBAC manifest binds, granted only that
    // manifest (applied here), never the sandbox's admin kubeconfig, so a missing permission shows up here first.
    const identity = await kubeSandbox.addIdentity({ name: 'sts-volume-gitops-sandbox', groups: [defaultRbacGroup] });
    info.toolKubeconfig = identity.kubeconfigPath;
    // Size sources and prices belong to the seed's repository and cluster: its sandbox-target.yaml says them, and a
    // seed without one gets neither, said on stderr.
    // A key generated for this sandbox, in a file only its user can read; the Lease and records in their own namespace,
    // which the RBAC manifest applied below creates.
    const recordKeyFile = join(workDir, 'record-key');
    await writeFile(recordKeyFile, `${generateRecordKey()}\n`, { mode: 0o600 });
    const seedFolder = values.seed === undefined ? examples : resolve(values.seed);
    const seedTarget = await readSeedTarget(seedFolder);
    if (seedTarget === undefined) {
      process.stderr.write(`note: ${join(seedFolder, seedTargetFile)} does not exist: the ready config maps no chart values (sizeSources) and prices no StorageClass\n`);
    }
    const configText = sandboxConfig(identity.kubeconfigPath, info.githubUrl, 'STS_SANDBOX_GITHUB_TOKEN', seedTarget?.sizeSources ?? [],
      { recordKey: { file: recordKeyFile }, stateNamespace: undefined, ...(seedTarget?.prices ? { prices: seedTarget.prices } : {}) });
    if (seedTarget?.prices) info.prices = describePrices(seedTarget.prices);
    await writeFile(info.config, configText);
    for (const object of rbacObjects(parseConfig(configText, info.config, workDir).targets)) {
      // A cluster seeded from elsewhere may lack a namespace the config allows: that grant is missing, and said so.
      await applyObjects(kubeSandbox, [object]).catch((error: unknown) => {
        const { kind, metadata } = object as { kind?: string; metadata?: { namespace?: string; name?: string } };
        process.stderr.write(`warning: could not grant ${kind ?? '?'} ${metadata?.namespace ? `${metadata.namespace}/` : ''}${metadata?.name ?? '?'}: ${(error as Error).message}\n`);
      });
    }
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
  } else {
    for (const [key, value] of Object.entries(info)) process.stdout.write(`${key.padEnd(14)} ${value}\n`);
    if (info.config) {
      process.stdout.write(`\nTry:\n  export STS_SANDBOX_GITHUB_TOKEN=${info.githubToken ?? ''}\n  npx sts-volume-gitops check --config ${info.config}\n  npx sts-volume-gitops plan --config ${info.config}\n`);
    }
    process.stdout.write('\nPress Ctrl-C to stop.\n');
  }
}
