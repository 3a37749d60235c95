// Turns one configured target into the engine's ports: a Git source (GitHub or a local directory) and a cluster
// (kubeconfig or EKS). The only place that reads credentials from the environment or files.
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import type { EksCluster } from '../domain/cluster-key.ts';
import type { RecordKeySource, TargetConfig } from '../domain/config.ts';
import { RecordKey } from '../engine/records/authenticity.ts';
import { KubeCluster } from '../adapters/kube/kube-cluster.ts';
import { instrumentedKubeConfig, type KubernetesRequestObserver } from '../adapters/kube/instrumented-kube-config.ts';
import { canWait, requestTimeoutMs, type RemainingMs } from './deadline.ts';
import { GitHubSource } from '../adapters/github/github-source.ts';
import { createGitHubClient, type GitHubAuth, type GitHubClient } from '../adapters/github/octokit.ts';
import { GitHubReviewHost } from '../adapters/github/review-host.ts';
import { DirectorySource } from '../adapters/local/directory-source.ts';
import type { ClusterPort, GitHistoryPort, GitSourcePort, ReviewHost } from '../engine/ports.ts';
import type { RepoLinks } from '../feedback/render-plan-comment.ts';
import type { PassTarget } from '../engine/run-pass.ts';
import type { RerunRef } from './target-messages.ts';
import { prometheusAuthorizer } from '../usage/prometheus-auth.ts';
import type { UsageSource } from '../usage/size-proposals.ts';

export interface OpenedTarget {
  target: PassTarget;
  /** Signs and authenticates recreation records; undefined when the config names none (no recreation then). */
  recordKey: RecordKey | undefined;
  git: GitSourcePort;
  cluster: ClusterPort;
  /** Where the target's volume usage is read (`usage.prometheus`); its credential is read at the first query, never here. */
  usage: UsageSource | undefined;
  /** Present for GitHub sources: where feedback and recovery pull requests are written, and what they read. */
  github: { client: GitHubClient; host: ReviewHost; repository: GitHistoryPort; branch: string; links: RepoLinks } | undefined;
}

/** How a pass waits on GitHub. */
export interface GitHubTiming {
  /** GitHub's spacing between writes (createGitHubClient's `spaceWrites`, on by default); off only against the embedded sandbox. */
  spaceGitHubWrites?: boolean;
}

export interface OpenOptions {
  env?: NodeJS.ProcessEnv;
  /** Reads the App private key from the secret the config names (Lambda: Secrets Manager via Powertools Parameters). */
  readSecret?: (id: string) => Promise<string>;
  /** Reads the recreation record key from the secret the config names (Lambda: Secrets Manager). */
  readRecordKey?: (id: string) => Promise<string>;
  /** Reads a secret's text (Lambda: Secrets Manager), for the Prometheus bearer token `usage.prometheus.auth.bearer.secret` names. */
  readSecretText?: (id: string) => Promise<string>;
  /** Apply passes read the record key; plan and validate passes never touch records, so never read it. */
  needsRecordKey?: boolean;
  /** Builds a KubeConfig for an EKS cluster (Lambda: the function's role; CLI plan and check: this machine's AWS credentials). */
  eksKubeConfig?: (cluster: EksCluster) => Promise<KubeConfig>;
  /** Sees every Kubernetes request (the API-call metrics). */
  onKubernetesRequest?: KubernetesRequestObserver;
  /** What went wrong but was worked around (a tarball that could not be read): said, not failed on. */
  onWarning?: (message: string) => void;
  /** The invocation's time left: bounds every request and every rate-limit wait. */
  remainingMs?: RemainingMs;
  /** This tool's check runs someone asked for again on a commit (a check's Re-run): written anew even unchanged. */
  rerun?: RerunRef;
  timing?: GitHubTiming;
}

export class TargetSetupError extends Error {
  constructor(target: string, message: string) {
    super(`target ${target}: ${message}`);
    this.name = 'TargetSetupError';
  }
}

export async function openTarget(config: TargetConfig, options: OpenOptions = {}): Promise<OpenedTarget> {
  const env = options.env ?? process.env;
  const paths = 'github' in config.source ? config.source.github.paths : config.source.local.paths;
  const target: PassTarget = {
    name: config.name,
    globs: paths,
    defaultNamespace: config.namespaces.default,
    allowedNamespaces: config.namespaces.allow,
    sizeSources: config.sizeSources,
    stateNamespace: config.namespaces.state,
    ...(config.guardrails ? { guardrails: config.guardrails } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
    ...(config.stalledAfterSeconds !== undefined ? { stalledAfterSeconds: config.stalledAfterSeconds } : {}),
    ...(config.modificationLimits ? { modificationLimits: config.modificationLimits } : {}),
  };
  const recordKey = config.recordKey === undefined || !options.needsRecordKey ? undefined : await readRecordKey(config.name, config.recordKey, env, options);
  const kubeConfig = await kubeConfigFor(config, options);
  const timeoutMs = () => requestTimeoutMs(options.remainingMs);
  const cluster = new KubeCluster(instrumentedKubeConfig(kubeConfig, { timeoutMs, ...(options.onKubernetesRequest ? { observe: options.onKubernetesRequest } : {}) }));
  const usage = usageSourceOf(config, options, env, timeoutMs);
  if ('local' in config.source) {
    return { target, recordKey, cluster, usage, git: new DirectorySource(config.source.local.directory, paths, mappedFiles(config)), github: undefined };
  }
  const source = config.source.github;
  const client = createGitHubClient({
    ...(source.apiUrl ? { baseUrl: source.apiUrl } : {}),
    auth: await gitHubAuth(config.name, source, env, options),
    requestTimeoutMs: timeoutMs,
    canWait: (waitMs) => canWait(options.remainingMs, waitMs),
    ...(options.timing?.spaceGitHubWrites === false ? { spaceWrites: false } : {}),
  });
  const git = new GitHubSource(client, { owner: source.owner, repo: source.repo }, source.branch, paths, mappedFiles(config), options.onWarning);
  const repo = { owner: source.owner, repo: source.repo };
  const host = new GitHubReviewHost(client, repo, source.app ? { checkRunsAppId: source.app.appId, ...(options.rerun ? { rerun: options.rerun } : {}) } : {});
  return { target, recordKey, cluster, usage, git, github: { client, host, repository: git, branch: source.branch, links: { htmlBase: htmlBaseOf(source.apiUrl), ...repo } } };
}

/** The target's Prometheus, authenticated as configured; undefined when it reads no usage. */
export function usageSourceOf(config: TargetConfig, options: Pick<OpenOptions, 'readSecretText'>, env: NodeJS.ProcessEnv, timeoutMs: () => number): UsageSource | undefined {
  const prometheus = config.usage?.prometheus;
  if (!prometheus) return undefined;
  const authorize = prometheusAuthorizer(prometheus.auth, { env, ...(options.readSecretText ? { readSecret: options.readSecretText } : {}) });
  return { endpoint: { url: prometheus.url, authorize }, timeoutMs };
}

/** Where people read the repository: GitHub Enterprise Server serves its API under `<host>/api/v3`. */
export function htmlBaseOf(apiUrl: string | undefined): string {
  const enterprise = apiUrl === undefined ? undefined : /^(https?:\/\/[^/]+)\/api\/v3\/?$/.exec(apiUrl);
  return enterprise?.[1] ?? 'https://github.com';
}

/** The files the target's size sources read, wherever they are (the Git sources read them besides the globs). */
export function mappedFiles(config: TargetConfig): string[] {
  return [...new Set(config.sizeSources.map((s) => s.file))];
}

export async function kubeConfigFor(config: TargetConfig, options: OpenOptions): Promise<KubeConfig> {
  if ('eks' in config.cluster) {
    if (!options.eksKubeConfig) throw new TargetSetupError(config.name, 'EKS clusters are reached by the deployed function, and from the command line by plan and check only; use a kubeconfig target here');
    return options.eksKubeConfig(config.cluster.eks);
  }
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromFile(config.cluster.kubeconfig.path);
  } catch (error) {
    throw new TargetSetupError(config.name, `cannot read kubeconfig ${config.cluster.kubeconfig.path}: ${kubeconfigFailure(error)}`);
  }
  const context = config.cluster.kubeconfig.context;
  if (context !== undefined) {
    if (!kubeConfig.getContexts().some((c) => c.name === context)) {
      throw new TargetSetupError(config.name, `kubeconfig ${config.cluster.kubeconfig.path} has no context ${context}`);
    }
    kubeConfig.setCurrentContext(context);
  }
  return kubeConfig;
}

/**
 * Why a kubeconfig could not be read, without its text: js-yaml's message quotes the lines around the fault, and a
 * kubeconfig holds tokens and client keys. The reason and position only, as for the configuration (domain/config.ts).
 */
function kubeconfigFailure(error: unknown): string {
  const yaml = error as { name?: string; reason?: string; mark?: { line: number; column: number } };
  if (yaml.name === 'YAMLException') {
    return `not valid YAML${yaml.mark ? ` at line ${yaml.mark.line + 1}, column ${yaml.mark.column + 1}` : ''}: ${yaml.reason ?? 'unreadable'}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export type GitHubSourceConfig = Extract<TargetConfig['source'], { github: unknown }>['github'];

export async function gitHubAuth(
  targetName: string, source: GitHubSourceConfig, env: NodeJS.ProcessEnv, options: OpenOptions,
): Promise<GitHubAuth> {
  if (source.app) {
    const key = source.app.privateKey;
    let privateKey: string | undefined;
    if ('file' in key && key.file !== undefined) privateKey = await readFile(key.file, 'utf8');
    else if ('env' in key && key.env !== undefined) privateKey = env[key.env];
    else if ('secret' in key && key.secret !== undefined && options.readSecret) privateKey = await options.readSecret(key.secret);
    if (!privateKey) throw new TargetSetupError(targetName, 'the GitHub App private key is empty or not found');
    assertPrivateKeyPem(targetName, privateKey, keySetting(key));
    return { kind: 'app', appId: source.app.appId, installationId: source.app.installationId, privateKey };
  }
  const variable = source.token?.env ?? 'GITHUB_TOKEN';
  // A token read from a file or a secret often ends in a line break. One left inside would reach fetch, whose refusal
  // quotes the whole header (`Headers.append: "token ghp_..." is an invalid header value`), and Octokit's redaction of
  // the Authorization header stops at a line break: so the token is trimmed, and a token with any other character a
  // header cannot carry is refused here, unshown.
  const token = env[variable]?.trim();
  if (!token) throw new TargetSetupError(targetName, `environment variable ${variable} with the GitHub token is not set`);
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TargetSetupError(targetName, `environment variable ${variable} holds a GitHub token with a space, line break or other character no token has (not shown)`);
  }
  return { kind: 'token', token };
}

/** The key the config names; a key named but not found, or too short, fails the target (never shown). */
export async function readRecordKey(targetName: string, source: RecordKeySource, env: NodeJS.ProcessEnv, options: OpenOptions): Promise<RecordKey> {
  let text: string | undefined;
  let where: string;
  if (source.file !== undefined) {
    where = `file ${source.file}`;
    text = await readFile(source.file, 'utf8').catch((error: unknown) => {
      throw new TargetSetupError(targetName, `cannot read the record key ${where}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    });
  } else if (source.env !== undefined) {
    where = `environment variable ${source.env}`;
    text = env[source.env];
  } else {
    where = `secret ${source.secret ?? '?'}`;
    if (!options.readRecordKey) throw new TargetSetupError(targetName, `the record key is in ${where}, which only the Lambda function reads; use recordKey.env or recordKey.file here`);
    text = await options.readRecordKey(source.secret ?? '');
  }
  if (!text) throw new TargetSetupError(targetName, `the record key (${where}) is empty or not set`);
  try {
    return RecordKey.fromText(text, where);
  } catch (error) {
    throw new TargetSetupError(targetName, (error as Error).message);
  }
}

/** Which setting holds the App key, for an error that says where to look (never the key itself). */
function keySetting(key: NonNullable<GitHubSourceConfig['app']>['privateKey']): string {
  if ('file' in key && key.file !== undefined) return `file ${key.file}`;
  if ('env' in key && key.env !== undefined) return `environment variable ${key.env}`;
  return 'secret' in key && key.secret !== undefined ? `secret ${key.secret}` : 'privateKey';
}

/**
 * The App key is checked here, where its three sources meet, rather than at the first token request: there OpenSSL's
 * decoder text ("error:1E08010C:DECODER routines::unsupported") names neither the setting nor what is wrong.
 */
function assertPrivateKeyPem(targetName: string, privateKey: string, setting: string): void {
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new TargetSetupError(targetName, `the GitHub App private key (${setting}) is not a PEM private key: store the .pem file GitHub generated for the App, whole (-----BEGIN ... PRIVATE KEY----- to -----END ... PRIVATE KEY-----)`);
  }
}
