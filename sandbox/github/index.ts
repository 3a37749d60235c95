// The embedded GitHub sandbox: the REST API over a real bare git repository, plus scripted activity (commits, pull
// requests, merges) done the way a person on github.com would.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultInjector } from '../kube/faults.ts';
import { createGitHubServer, type GitHubState } from './api-server.ts';
import { GitRepo } from './git-repo.ts';
import { GitHubRequestLog } from './request-log.ts';

export interface GitHubSandboxOptions {
  port?: number;
  seedDir?: string;
  owner?: string;
  repo?: string;
  defaultBranch?: string;
  workDir?: string;
}

export interface GitHubSandbox {
  url: string;
  token: string;
  owner: string;
  repo: string;
  defaultBranch: string;
  app: { appId: number; installationId: number; privateKeyPem: string };
  state: GitHubState;
  faults: FaultInjector;
  requestLog: GitHubRequestLog;
  commitFiles(options: { branch: string; message: string; files: Record<string, string | null>; baseBranch?: string; author?: string }): Promise<string>;
  openPullRequest(options: { head: string; base?: string; title: string; body?: string; author?: string }): Promise<number>;
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
  const state: GitHubState = {
    owner, repo, defaultBranch, git, pulls: [], comments: [], statuses: [],
    tokens: new Map([[token, 'platform-bot']]), appId: 4242, installationId: 777, appPublicKey: publicKey, nextId: 1,
  };
  const faults = new FaultInjector();
  const requestLog = new GitHubRequestLog();
  let url = '';
  const server = createGitHubServer({ state, faults, requestLog, baseUrl: () => url });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    url, token, owner, repo, defaultBranch, state, faults, requestLog,
    app: { appId: state.appId, installationId: state.installationId, privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() },
    commitFiles: async ({ branch, message, files, baseBranch, author }) => {
      const head = await git.resolve(`refs/heads/${branch}`) ?? await git.resolve(`refs/heads/${baseBranch ?? defaultBranch}`);
      const changes = new Map<string, { mode: string; sha: string } | null>();
      for (const [path, content] of Object.entries(files)) {
        changes.set(path, content === null ? null : { mode: '100644', sha: await git.writeBlob(Buffer.from(content)) });
      }
      const tree = await git.buildTree(head, changes);
      const name = author ?? 'Dana Developer';
      const sha = await git.commitTree(tree, head ? [head] : [], message, { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com` });
      await git.updateRef(`refs/heads/${branch}`, sha);
      return sha;
    },
    openPullRequest: async ({ head, base, title, body, author }) => {
      const headSha = await git.resolve(`refs/heads/${head}`);
      const baseSha = await git.resolve(`refs/heads/${base ?? defaultBranch}`);
      if (!headSha || !baseSha) throw new Error(`branch ${headSha ? base ?? defaultBranch : head} does not exist`);
      const created = now();
      const number = state.nextId++;
      state.pulls.push({ number, title, body: body ?? null, state: 'open', head, base: base ?? defaultBranch, headSha, baseSha, mergedAt: null, mergeCommitSha: null, createdAt: created, updatedAt: created, closedAt: null, user: author ?? 'dana', labels: [] });
      return number;
    },
    mergePullRequest: async (number, method = 'merge') => {
      const response = await fetch(`${url}/repos/${owner}/${repo}/pulls/${number}/merge`, {
        method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ merge_method: method }),
      });
      const body = await response.json() as { sha?: string; message?: string };
      if (!response.ok || !body.sha) throw new Error(`merge of #${number} failed: ${body.message ?? response.status}`);
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
    },
  };
}
