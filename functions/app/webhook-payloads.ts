// The shape of each webhook event this tool acts on, checked before anything is decided. The signature covers the
// body, not the X-GitHub-Event header: a signed body of one event resent under another event's name must be refused,
// so each reader demands the fields that make its event what it is (a push has a ref, before and after SHAs, created,
// deleted and a pusher; a pull_request an action, a number and the pull request's head and base; a merge_group an
// action and the queue's head and base commits; a check_run its run, with the run's suite; a check_suite the suite).
// Pure: a problem is a sentence naming the field, never a value from the body.

/** A commit SHA as GitHub writes it: SHA-1, or SHA-256 in repositories that use it. */
const commitSha = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export interface PushDelivery {
  event: 'push';
  /** `owner/name` in lower case. */
  repository: string;
  ref: string;
  before: string;
  after: string;
  deleted: boolean;
}

export interface PullRequestDelivery {
  event: 'pull_request';
  /** `owner/name` in lower case: the repository the pull request is opened in. */
  repository: string;
  action: string;
  number: number;
  baseRef: string;
  headSha: string;
  /** The head branch lives in another repository, or in one since deleted (`head.repo` is null). */
  fromFork: boolean;
  /** `edited` with `changes.base`: the pull request now merges into another branch. */
  baseChanged: boolean;
}

export interface MergeGroupDelivery {
  event: 'merge_group';
  /** `owner/name` in lower case. */
  repository: string;
  action: string;
  /** The queue's merge commit, and the commit of the base branch it is built on. */
  headSha: string;
  baseSha: string;
  /** The base branch's name (`refs/heads/` taken off). */
  baseRef: string;
}

/** A pull request GitHub lists on a check run or suite: only those of this repository whose head is the commit. */
export interface CheckPullRequest {
  number: number;
  baseRef: string;
}

/** Someone asked for a check run again ("Re-run" on a check): `check_run` `rerequested`, and its other actions. */
export interface CheckRunDelivery {
  event: 'check_run';
  /** `owner/name` in lower case. */
  repository: string;
  action: string;
  /** The check run's name (`sts-volume-gitops/validate (prod)`), its commit and the App that made it. */
  name: string;
  headSha: string;
  appId: number;
  /** The branch the check suite was made for: null for a fork's commit; a merge queue's is `gh-readonly-queue/...`. */
  headBranch: string | null;
  pullRequests: CheckPullRequest[];
}

/** "Re-run all checks" on a commit: `check_suite` `rerequested` (and its other actions), for one App's suite. */
export interface CheckSuiteDelivery {
  event: 'check_suite';
  repository: string;
  action: string;
  headSha: string;
  appId: number;
  headBranch: string | null;
  pullRequests: CheckPullRequest[];
}

export type WebhookDelivery = PushDelivery | PullRequestDelivery | MergeGroupDelivery | CheckRunDelivery | CheckSuiteDelivery;

/** The delivery, or why the body is not one of `event`. */
export type PayloadReading<T> = { ok: true; delivery: T } | { ok: false; problem: string };

type Json = Record<string, unknown>;

class ShapeProblem extends Error {}

function objectAt(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ShapeProblem(`${where} must be an object`);
  return value as Json;
}

function stringAt(object: Json, field: string, where: string): string {
  const value = object[field];
  if (typeof value !== 'string' || value === '') throw new ShapeProblem(`${where}.${field} must be a non-empty string`);
  return value;
}

function shaAt(object: Json, field: string, where: string): string {
  const value = object[field];
  if (typeof value !== 'string' || !commitSha.test(value)) throw new ShapeProblem(`${where}.${field} must be a commit SHA (40 or 64 lower-case hex digits)`);
  return value;
}

function booleanAt(object: Json, field: string, where: string): boolean {
  const value = object[field];
  if (typeof value !== 'boolean') throw new ShapeProblem(`${where}.${field} must be true or false`);
  return value;
}

function numberAt(object: Json, field: string, where: string): number {
  const value = object[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new ShapeProblem(`${where}.${field} must be a positive whole number`);
  return value;
}

function fullNameAt(object: Json, field: string, where: string): string {
  const name = stringAt(objectAt(object[field], `${where}.${field}`), 'full_name', `${where}.${field}`);
  if (!/^[^/\s]+\/[^/\s]+$/.test(name)) throw new ShapeProblem(`${where}.${field}.full_name must be owner/name`);
  return name.toLowerCase();
}

function reading<T>(event: string, read: () => T): PayloadReading<T> {
  try {
    return { ok: true, delivery: read() };
  } catch (error) {
    if (!(error instanceof ShapeProblem)) throw error;
    return { ok: false, problem: `the body is not a ${event} delivery: ${error.message}` };
  }
}

export function readPush(payload: unknown): PayloadReading<PushDelivery> {
  return reading('push', () => {
    const body = objectAt(payload, 'the body');
    const ref = stringAt(body, 'ref', 'body');
    if (!ref.startsWith('refs/')) throw new ShapeProblem('body.ref must be a full ref name (refs/...)');
    const before = shaAt(body, 'before', 'body');
    const after = shaAt(body, 'after', 'body');
    const deleted = booleanAt(body, 'deleted', 'body');
    booleanAt(body, 'created', 'body');
    objectAt(body.pusher, 'body.pusher');
    return { event: 'push', repository: fullNameAt(body, 'repository', 'body'), ref, before, after, deleted };
  });
}

export function readPullRequest(payload: unknown): PayloadReading<PullRequestDelivery> {
  return reading('pull_request', () => {
    const body = objectAt(payload, 'the body');
    const action = stringAt(body, 'action', 'body');
    const number = numberAt(body, 'number', 'body');
    const pr = objectAt(body.pull_request, 'body.pull_request');
    if (numberAt(pr, 'number', 'body.pull_request') !== number) throw new ShapeProblem('body.number and body.pull_request.number differ');
    const base = objectAt(pr.base, 'body.pull_request.base');
    const head = objectAt(pr.head, 'body.pull_request.head');
    const repository = fullNameAt(body, 'repository', 'body');
    const baseRepository = fullNameAt(base, 'repo', 'body.pull_request.base');
    if (baseRepository !== repository) throw new ShapeProblem('body.pull_request.base.repo is not body.repository');
    // A fork deleted since the pull request was opened leaves `head.repo` null: still not this repository's branch.
    const headRepository = head.repo === null ? undefined : fullNameAt(head, 'repo', 'body.pull_request.head');
    return {
      event: 'pull_request', repository, action, number,
      baseRef: stringAt(base, 'ref', 'body.pull_request.base'), headSha: shaAt(head, 'sha', 'body.pull_request.head'),
      fromFork: headRepository !== repository,
      baseChanged: action === 'edited' && typeof body.changes === 'object' && body.changes !== null
        && typeof (body.changes as Json).base === 'object' && (body.changes as Json).base !== null,
    };
  });
}

export function readMergeGroup(payload: unknown): PayloadReading<MergeGroupDelivery> {
  return reading('merge_group', () => {
    const body = objectAt(payload, 'the body');
    const action = stringAt(body, 'action', 'body');
    const group = objectAt(body.merge_group, 'body.merge_group');
    const baseRef = stringAt(group, 'base_ref', 'body.merge_group');
    if (!baseRef.startsWith('refs/heads/')) throw new ShapeProblem('body.merge_group.base_ref must be a branch ref (refs/heads/...)');
    return {
      event: 'merge_group', repository: fullNameAt(body, 'repository', 'body'), action,
      headSha: shaAt(group, 'head_sha', 'body.merge_group'), baseSha: shaAt(group, 'base_sha', 'body.merge_group'),
      baseRef: baseRef.slice('refs/heads/'.length),
    };
  });
}

/** The suite's branch: a string, or null (a fork's commit, or a commit no branch pointed at). */
function branchAt(suite: Json, where: string): string | null {
  const value = suite.head_branch;
  if (value === null) return null;
  if (typeof value !== 'string' || value === '') throw new ShapeProblem(`${where}.head_branch must be a branch name or null`);
  return value;
}

function appIdAt(object: Json, where: string): number {
  return numberAt(objectAt(object.app, `${where}.app`), 'id', `${where}.app`);
}

function pullRequestsAt(object: Json, where: string): CheckPullRequest[] {
  const list = object.pull_requests;
  if (!Array.isArray(list)) throw new ShapeProblem(`${where}.pull_requests must be a list`);
  return list.map((item: unknown, index) => {
    const pr = objectAt(item, `${where}.pull_requests[${index}]`);
    const base = objectAt(pr.base, `${where}.pull_requests[${index}].base`);
    return { number: numberAt(pr, 'number', `${where}.pull_requests[${index}]`), baseRef: stringAt(base, 'ref', `${where}.pull_requests[${index}].base`) };
  });
}

export function readCheckRun(payload: unknown): PayloadReading<CheckRunDelivery> {
  return reading('check_run', () => {
    const body = objectAt(payload, 'the body');
    const action = stringAt(body, 'action', 'body');
    const run = objectAt(body.check_run, 'body.check_run');
    const suite = objectAt(run.check_suite, 'body.check_run.check_suite');
    return {
      event: 'check_run', repository: fullNameAt(body, 'repository', 'body'), action,
      name: stringAt(run, 'name', 'body.check_run'), headSha: shaAt(run, 'head_sha', 'body.check_run'), appId: appIdAt(run, 'body.check_run'),
      headBranch: branchAt(suite, 'body.check_run.check_suite'), pullRequests: pullRequestsAt(run, 'body.check_run'),
    };
  });
}

export function readCheckSuite(payload: unknown): PayloadReading<CheckSuiteDelivery> {
  return reading('check_suite', () => {
    const body = objectAt(payload, 'the body');
    const action = stringAt(body, 'action', 'body');
    const suite = objectAt(body.check_suite, 'body.check_suite');
    return {
      event: 'check_suite', repository: fullNameAt(body, 'repository', 'body'), action,
      headSha: shaAt(suite, 'head_sha', 'body.check_suite'), appId: appIdAt(suite, 'body.check_suite'),
      headBranch: branchAt(suite, 'body.check_suite'), pullRequests: pullRequestsAt(suite, 'body.check_suite'),
    };
  });
}

/** One reader per event the webhook acts on; deliveries of any other event are ignored unread. */
export const payloadReaders: Readonly<Record<WebhookDelivery['event'], (payload: unknown) => PayloadReading<WebhookDelivery>>> = {
  push: readPush,
  pull_request: readPullRequest,
  merge_group: readMergeGroup,
  check_run: readCheckRun,
  check_suite: readCheckSuite,
};

export function isReadEvent(event: string): event is WebhookDelivery['event'] {
  return Object.hasOwn(payloadReaders, event);
}
