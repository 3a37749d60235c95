// The GitHub sandbox's state: one repository over a real git repo, its pull requests, comments, statuses and the
// credentials it accepts; plus what every endpoint handler is given.
import type { KeyObject } from 'node:crypto';
import type { FaultInjector } from '../kube/faults.ts';
import type { GitRepo } from './git-repo.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { GitHubRequestLog } from './request-log.ts';
import type { WebhookDeliveries } from './webhook-deliveries.ts';
import type { Json } from './json.ts';

export type { Json } from './json.ts';

/** A repository role, least to most access; editing someone else's comment needs `write`. */
export type RepositoryRole = 'read' | 'triage' | 'write' | 'maintain' | 'admin';

/** Who a credential belongs to. */
export interface Identity {
  login: string;
  /** A person's account, or the bot user a GitHub App acts as (`slug[bot]`). */
  type: 'User' | 'Bot';
  /** How GitHub refuses this kind of credential a permission (`... by integration` for an App). */
  credential: 'token' | 'installation' | 'app';
  role: RepositoryRole;
  /** What the primary rate limit is counted per (a user, an installation, an App) and how the 403 names it. */
  rateLimitSubject: string;
  /**
   * A classic personal access token's OAuth scopes, sent back in every answer's `X-OAuth-Scopes` header as GitHub does.
   * Undefined for fine-grained tokens and installation tokens, whose answers carry no such header.
   */
  scopes?: readonly string[];
}

/** A GitHub App permission level (`contents: read`, `pull_requests: write`). */
export type PermissionLevel = 'read' | 'write' | 'admin';

export interface Fork {
  owner: string;
  createdAt: string;
}

export interface PullRequest {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  /** The head branch's name, in the repository of `headOwner`. */
  head: string;
  /** Who owns the head repository: the base repository's owner, or the login of a fork's owner. */
  headOwner: string;
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
  /** A locked conversation: only maintainers and admins may comment (bots and other collaborators get 403). */
  locked?: boolean;
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

/** One annotation of a check run, on a file and lines of its commit. */
export interface CheckRunAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  startColumn: number | null;
  endColumn: number | null;
  level: 'notice' | 'warning' | 'failure';
  title: string | null;
  message: string;
  rawDetails: string | null;
}

/** A check run of the App on a commit (only an installation token writes them). */
export interface CheckRun {
  id: number;
  headSha: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  startedAt: string;
  completedAt: string | null;
  externalId: string | null;
  detailsUrl: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Appended to by every create and update that sends some (GitHub never replaces them). */
  annotations: CheckRunAnnotation[];
  /** The login of the bot user that created it: only it may update it. */
  creator: string;
  /** The App it belongs to, when not the sandbox's own (a workflow job's run is GitHub Actions'). */
  app?: OtherApp;
}

/** Another GitHub App, as a check run names it (`app`). */
export interface OtherApp {
  id: number;
  slug: string;
  name: string;
  /** The account that owns the App. */
  owner: string;
  description: string;
  externalUrl: string;
}

/** A classic branch protection rule's required status checks: each context, and the App it must come from (null: any). */
export interface BranchProtection {
  requiredStatusChecks?: { strict: boolean; checks: Array<{ context: string; appId: number | null }> };
}

export interface GitHubState {
  owner: string;
  repo: string;
  defaultBranch: string;
  git: GitRepo;
  pulls: PullRequest[];
  comments: IssueComment[];
  statuses: CommitStatus[];
  checkRuns: CheckRun[];
  /** Forks of the repository (same name, owned by `owner`); their branches live in the shared object store. */
  forks: Fork[];
  tokens: Map<string, Identity>;
  rateLimit: RateLimiter;
  appId: number;
  /** The App's URL name: it comments and commits as `${appSlug}[bot]`. */
  appSlug: string;
  installationId: number;
  /**
   * What the installation was granted, as `GET /repos/{o}/{r}/installation` reports it; its tokens are refused what it
   * was not granted (`checks: 'write'` lets it write check runs). Tests take permissions away.
   */
  installationPermissions: Record<string, PermissionLevel>;
  /** Classic branch protection rules by branch name (read with admin rights, or an installation's `administration: read`). */
  branchProtections: Record<string, BranchProtection>;
  /** The repository's rulesets, each with the branches it targets and its rules (as the rules API reports them). */
  rulesets: Array<{ id: number; name: string; branches: string[]; rules: Json[] }>;
  appPublicKey: KeyObject;
  nextId: number;
  /**
   * Entries a recursive tree answer lists before it is cut short with `truncated: true` (GitHub's is 100,000, or 7 MB
   * of answer): tests lower it to play a repository too large for one call without writing 100,000 files.
   */
  treeEntryLimit: number;
}

export interface GitHubServerContext {
  state: GitHubState;
  faults: FaultInjector;
  requestLog: GitHubRequestLog;
  baseUrl: () => string;
  /** Who hears about pushes, pull requests and re-runs (events.ts), as a GitHub App's webhook would. */
  webhooks: WebhookDeliveries;
}
