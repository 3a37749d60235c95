// The embedded GitHub sandbox: the REST API over a real bare git repository, plus scripted activity (commits, pull
// requests, merges) done the way a person on github.com would.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultInjector } from '../kube/faults.ts';
import { listenOnLoopback } from '../kube/listen.ts';
import { createGitHubServer, type GitHubServerContext, type GitHubState, type RepositoryRole } from './api-server.ts';
import { personIdentity } from './auth.ts';
import { defaultInstallationPermissions, gitHubActionsApp } from './endpoints/installations.ts';
import { createFork, forkBranchRef, headRefOf, parseHead } from './forks.ts';
import { GitRepo } from './git-repo.ts';
import { RateLimiter, type RateLimitOptions } from './rate-limit.ts';
import { writeRepeatedBlob, type RepeatedText } from './repeated-blob.ts';
import { GitHubRequestLog } from './request-log.ts';
import { branchMoved, pullRequestChanged } from './events.ts';
import { WebhookDeliveries } from './webhook-deliveries.ts';

export interface GitHubSandboxOptions {
  port?: number;
  seedDir?: string;
  owner?: string;
  repo?: string;
  defaultBranch?: string;
  workDir?: string;
  /** The primary rate limit (5000 requests an hour by default); `state.rateLimit.limit` can change it later. */
  rateLimit?: RateLimitOptions;
}

export interface GitHubSandbox {
  url: string;
  /** A token of `tokenLogin`, a person with write access. */
  token: string;
  tokenLogin: string;
  owner: string;
  repo: string;
  defaultBranch: string;
  /** The GitHub App; its installation tokens act as the bot user `botLogin` (`slug[bot]`). */
  app: { appId: number; installationId: number; privateKeyPem: string; slug: string; botLogin: string };
  state: GitHubState;
  /** What every endpoint is given (the payload builders of webhooks.ts take it). */
  context: GitHubServerContext;
  faults: FaultInjector;
  requestLog: GitHubRequestLog;
  /**
   * Subscribe a URL and secret: branches pushed (through the API, git over HTTP or these helpers), pull requests
   * opened, synchronized, closed and reopened, and check runs asked for again are delivered, signed (events.ts).
   */
  webhooks: WebhookDeliveries;
  /**
   * Commits to a branch of the repository, or of `fork`'s fork (see forkRepository). A file given as `RepeatedText` is a
   * text repeated to a size, stored in seconds whatever its size (repeated-blob.ts): a test's 1 GiB file.
   */
  commitFiles(options: { branch: string; message: string; files: Record<string, string | Buffer | RepeatedText | null>; baseBranch?: string; author?: string; fork?: string }): Promise<string>;
  /** Opens a pull request as a person would; `head` is a branch, or `owner:branch` for a fork's branch. */
  openPullRequest(options: { head: string; base?: string; title: string; body?: string; author?: string }): Promise<number>;
  /**
   * A person (login) with a repository role, and a token of theirs for the API: a classic one with `scopes` (`repo` by
   * default), or a fine-grained one (`github_pat_...`, no scopes header) with `{ fineGrained: true }`.
   */
  addPerson(login: string, role?: RepositoryRole, token?: { scopes?: readonly string[]; fineGrained?: boolean }): string;
  /**
   * A workflow job named `name` that ran on `sha`: a check run of GitHub Actions (any collaborator may push a workflow
   * whose job takes any name).
   */
  addWorkflowCheckRun(options: { sha: string; name: string; conclusion: 'success' | 'failure' }): number;
  /** A comment a person wrote on a pull request, as if made on github.com. */
  addComment(options: { pullNumber: number; body: string; author: string }): number;
  /** `owner`'s fork of the repository, with all its branches. */
  forkRepository(owner: string): Promise<void>;
  mergePullRequest(number: number, method?: 'merge' | 'squash'): Promise<string>;
  readFile(ref: string, path: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export async function startGitHubSandbox(options: GitHubSandboxOptions = {}): Promise<GitHubSandbox> {
  const owner = options.owner ?? 'acme';
  const repo = options.repo ?? 'platform-gitops';
  const defaultBranch = options.defaultBranch ?? 'main';
  const workDir = options.workDir ?? await mkdtemp(join(tmpdir(), 'sts-github-sandbox-'));
  const git = await GitRepo.init(join(workDir, `${repo}.git`), defaultBranch);
  if (options.seedDir) await git.seedFromDirectory(options.seedDir, defaultBranch);

  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const token = `ghp_${randomBytes(18).toString('hex')}`;
  const tokenLogin = 'platform-bot';
  const state: GitHubState = {
    owner, repo, defaultBranch, git, pulls: [], comments: [], statuses: [], checkRuns: [], forks: [],
    tokens: new Map([[token, personIdentity(tokenLogin, 'write', ['repo'])]]), rateLimit: new RateLimiter(options.rateLimit),
    appId: 4242, appSlug: 'sts-volume-gitops', installationId: 777, installationPermissions: { ...defaultInstallationPermissions }, branchProtections: {}, rulesets: [], appPublicKey: publicKey, nextId: 1, treeEntryLimit: 100_000,
  };
  const faults = new FaultInjector();
  const requestLog = new GitHubRequestLog();
  const webhooks = new WebhookDeliveries();
  let url = '';
  const context: GitHubServerContext = { state, faults, requestLog, baseUrl: () => url, webhooks };
  const server = createGitHubServer(context);
  url = await listenOnLoopback(server, options.port);

  const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    url, token, tokenLogin, owner, repo, defaultBranch, state, context, faults, requestLog, webhooks,
    app: {
      appId: state.appId, installationId: state.installationId, privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      slug: state.appSlug, botLogin: `${state.appSlug}[bot]`,
    },
    commitFiles: async ({ branch, message, files, baseBranch, author, fork }) => {
      const refOf = (name: string): string => (fork === undefined ? `refs/heads/${name}` : forkBranchRef(fork, name));
      if (fork !== undefined && !state.forks.some((f) => f.owner === fork)) throw new Error(`${fork} has no fork of ${owner}/${repo}`);
      const previous = await git.resolve(refOf(branch));
      const head = previous ?? await git.resolve(refOf(baseBranch ?? defaultBranch));
      const changes = new Map<string, { mode: string; sha: string } | null>();
      for (const [path, content] of Object.entries(files)) {
        if (content === null) changes.set(path, null);
        else if (typeof content === 'string' || Buffer.isBuffer(content)) changes.set(path, { mode: '100644', sha: await git.writeBlob(Buffer.from(content)) });
        else changes.set(path, { mode: '100644', sha: await writeRepeatedBlob(git.dir, content) });
      }
      const tree = await git.buildTree(head, changes);
      const name = author ?? 'Dana Developer';
      const sha = await git.commitTree(tree, head ? [head] : [], message, { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com` });
      await git.updateRef(refOf(branch), sha);
      if (fork === undefined) await branchMoved(context, branch, previous, sha, name);
      return sha;
    },
    openPullRequest: async ({ head: headSpec, base, title, body, author }) => {
      const { owner: headOwner, branch: head } = parseHead(state, headSpec);
      const headSha = await git.resolve(headRefOf(state, { head, headOwner }));
      const baseSha = await git.resolve(`refs/heads/${base ?? defaultBranch}`);
      if (!headSha || !baseSha) throw new Error(`branch ${headSha ? base ?? defaultBranch : headSpec} does not exist`);
      const created = now();
      const number = state.nextId++;
      const pull = { number, title, body: body ?? null, state: 'open' as const, head, headOwner, base: base ?? defaultBranch, headSha, baseSha, mergedAt: null, mergeCommitSha: null, createdAt: created, updatedAt: created, closedAt: null, user: author ?? (headOwner === owner ? 'dana' : headOwner), labels: [] };
      state.pulls.push(pull);
      await pullRequestChanged(context, pull, 'opened', pull.user);
      return number;
    },
    addPerson: (login, role = 'write', kind = {}) => {
      const personToken = `${kind.fineGrained ? 'github_pat_' : 'ghp_'}${randomBytes(18).toString('hex')}`;
      state.tokens.set(personToken, personIdentity(login, role, kind.fineGrained ? undefined : kind.scopes ?? ['repo']));
      return personToken;
    },
    addWorkflowCheckRun: ({ sha, name, conclusion }) => {
      const id = state.nextId++;
      const at = now();
      state.checkRuns.push({
        id, headSha: sha, name, status: 'completed', conclusion, startedAt: at, completedAt: at, externalId: null, detailsUrl: null,
        output: { title: null, summary: null, text: null }, annotations: [], creator: `${gitHubActionsApp.slug}[bot]`, app: gitHubActionsApp,
      });
      return id;
    },
    addComment: ({ pullNumber, body, author }) => {
      if (!state.pulls.some((p) => p.number === pullNumber)) throw new Error(`no pull request #${pullNumber}`);
      const created = now();
      const id = state.nextId++;
      state.comments.push({ id, issue: pullNumber, body, user: author, createdAt: created, updatedAt: created });
      return id;
    },
    forkRepository: async (forkOwner) => {
      await createFork(state, forkOwner, now());
    },
    mergePullRequest: async (number, method = 'merge') => {
      const response = await fetch(`${url}/repos/${owner}/${repo}/pulls/${number}/merge`, {
        method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ merge_method: method }),
      });
      const body = await response.json() as { sha?: string; message?: string };
      if (!response.ok || !body.sha) throw new Error(`merge of #${number} failed: ${body.message ?? response.status}`);
      // The merge's push and closed deliveries, made by the endpoint, are made before this returns.
      await webhooks.idle();
      return body.sha;
    },
    readFile: async (ref, path) => {
      const commit = await git.resolve(ref);
      if (!commit) return undefined;
      const entry = (await git.listTree(commit, true)).find((e) => e.path === path);
      return entry ? (await git.readBlob(entry.sha))?.toString('utf8') : undefined;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      git.close();
    },
  };
}
