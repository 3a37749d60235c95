// `check` for one target: every probe, in the order a pass needs them (the credential, the source, the cluster), each
// failure said as a result with what to do, never thrown. Reads only: nothing is written to GitHub or the cluster.
import type { KubeConfig } from '@kubernetes/client-node';
import { GitHubSource } from '../adapters/github/github-source.ts';
import { createGitHubClient, type GitHubAuth } from '../adapters/github/octokit.ts';
import { DirectorySource } from '../adapters/local/directory-source.ts';
import { allowAllWarnings } from '../app/allow-all.ts';
import { awsSetupFailureOf, awsSetupFix } from '../adapters/aws/aws-setup-failure.ts';
import { gitHubAuth, kubeConfigFor, mappedFiles, readRecordKey, type OpenOptions } from '../app/open-target.ts';
import type { TargetConfig } from '../domain/config.ts';
import { error, ok, warning, type CheckResult, type TargetCheck } from './check-result.ts';
import { probeCluster } from './probe-cluster.ts';
import { judgeClusterSetupFailure } from './reach-failure.ts';
import { probeGitHub } from './probe-github.ts';
import { probeSource, type SourceProbe } from './probe-source.ts';
import { probeUsage } from './probe-usage.ts';
import { count } from '../domain/spelling.ts';

export type CheckOptions = Pick<OpenOptions, 'env' | 'readSecret' | 'eksKubeConfig' | 'readRecordKey' | 'readSecretText'>;

export async function checkTarget(config: TargetConfig, options: CheckOptions = {}): Promise<TargetCheck> {
  const results: CheckResult[] = [ok('config', 'configuration', `valid; ${count(config.sizeSources.length, 'size source')}, namespaces ${config.namespaces.allow.join(', ')} (Lease and recreation records in ${config.namespaces.state})`)];
  results.push(await checkRecordKey(config, options));
  results.push(...allowAllWarnings([config]).map((w) => warning('config.allow-all', 'namespaces.allow', w.message, w.fix)));
  const source = await checkSource(config, options);
  results.push(...source.results);
  results.push(...await checkCluster(config, options, source.desired));
  results.push(...await probeUsage(config, source.desired, options));
  return { target: config.name, results };
}

/** The key that signs recreation records: without it no StatefulSet is recreated, so every template update is blocked. */
async function checkRecordKey(config: TargetConfig, options: CheckOptions): Promise<CheckResult> {
  if (config.recordKey === undefined) {
    return warning('config.record-key', 'recordKey', 'no record key: a resize that needs the live template recreated is blocked, and no recreation record is trusted',
      'set recordKey (secret, env or file) to a key of at least 32 characters; see the README, "Recreation records"');
  }
  try {
    await readRecordKey(config.name, config.recordKey, options.env ?? process.env, options);
    return ok('config.record-key', 'recordKey', 'readable, long enough to sign recreation records');
  } catch (cause) {
    const setup = awsSetupFailureOf(cause);
    return error('config.record-key', 'recordKey', messageOf(cause), setup
      ? awsSetupFix(setup, `secretsmanager:GetSecretValue on ${config.recordKey.secret ?? 'the secret recordKey names'}`)
      : 'store a key of at least 32 characters where recordKey says (`openssl rand -base64 32`)');
  }
}

async function checkSource(config: TargetConfig, options: CheckOptions): Promise<SourceProbe> {
  if ('local' in config.source) {
    const local = config.source.local;
    return probeSource(config, new DirectorySource(local.directory, local.paths, mappedFiles(config)), local.directory);
  }
  const github = config.source.github;
  const repo = { owner: github.owner, repo: github.repo };
  let auth: GitHubAuth;
  try {
    auth = await gitHubAuth(config.name, github, options.env ?? process.env, options);
  } catch (cause) {
    const setup = awsSetupFailureOf(cause);
    const secret = github.app && 'secret' in github.app.privateKey ? github.app.privateKey.secret : undefined;
    return {
      results: [error('github.credential', `${repo.owner}/${repo.repo}`, messageOf(cause),
        setup ? awsSetupFix(setup, `secretsmanager:GetSecretValue on ${secret ?? 'the App key\'s secret'}`)
          : github.app ? 'make the private key readable where source.github.app.privateKey says (file, environment variable or secret)'
            : `export ${github.token?.env ?? 'GITHUB_TOKEN'}=<a token with the repo scope, or a fine-grained token>`)],
      desired: undefined,
    };
  }
  const client = createGitHubClient({ ...(github.apiUrl ? { baseUrl: github.apiUrl } : {}), auth, maxRateLimitRetries: 0 });
  // A GitHub App's verdicts are check runs (checks: write), a token's commit statuses.
  const credential = await probeGitHub(config, client, repo, auth, { checkRuns: auth.kind === 'app' });
  if (credential.some((r) => r.id === 'github.credential' && r.level === 'error')) return { results: credential, desired: undefined };
  const read = await probeSource(config, new GitHubSource(client, repo, github.branch, github.paths, mappedFiles(config)), `${repo.owner}/${repo.repo}@${github.branch}`);
  return { results: [...credential, ...read.results], desired: read.desired };
}

async function checkCluster(config: TargetConfig, options: CheckOptions, desired: SourceProbe['desired']): Promise<CheckResult[]> {
  let kubeConfig: KubeConfig;
  try {
    kubeConfig = await kubeConfigFor(config, options);
  } catch (cause) {
    return [judgeClusterSetupFailure(config, cause)];
  }
  return probeCluster(config, kubeConfig, desired);
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
