// The GitHub sandbox's state: one repository over a real git repo, its pull requests, comments, statuses and the
// credentials it accepts; plus what every endpoint handler is given.
import type { KeyObject } from 'node:crypto';
import type { FaultInjector } from '../kube/faults.ts';
import type { GitRepo } from './git-repo.ts';
import type { GitHubRequestLog } from './request-log.ts';

export type Json = Record<string, unknown>;

export interface PullRequest {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  head: string;
  base: string;
  headSha: string;
  baseSha: string;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  user: string;
  labels: string[];
}

export interface IssueComment {
  id: number;
  issue: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface CommitStatus {
  id: number;
  sha: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  context: string;
  targetUrl: string | null;
  createdAt: string;
  creator: string;
}

export interface GitHubState {
  owner: string;
  repo: string;
  defaultBranch: string;
  git: GitRepo;
  pulls: PullRequest[];
  comments: IssueComment[];
  statuses: CommitStatus[];
  tokens: Map<string, string>;
  appId: number;
  installationId: number;
  appPublicKey: KeyObject;
  nextId: number;
}

export interface GitHubServerContext {
  state: GitHubState;
  faults: FaultInjector;
  requestLog: GitHubRequestLog;
  baseUrl: () => string;
}
