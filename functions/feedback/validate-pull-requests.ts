// Before merge: for each open PR against the target branch that touches the target's manifests or a file its size
// sources map, plan the PR head against the live cluster (reads and dry runs only) and report it as a commit status
// (a check run with annotations on the storage lines, where the App may write them) and an upserted plan comment.
import { matchesManifestGlobs } from '../domain/manifests.ts';
import { SourceTooLargeError } from '../domain/source-limits.ts';
import { readTargetDesired } from '../engine/desired/desired-input.ts';
import { noManifestsAt, readsNothing } from '../engine/desired/no-manifests.ts';
import { namespaceScopeOf } from '../engine/pass-context.ts';
import type { ClusterPort, ForeignVerdict, GitHistoryPort, ReviewHost, WriteOutcome } from '../engine/ports.ts';
import { planWithDryRuns, reportFromPlan, type PassTarget, type StatefulSetReport } from '../engine/run-pass.ts';
import type { LocatedError } from '../domain/desired-state.ts';
import { forkVerdict, type ForkCheck } from './fork-verdict.ts';
import { foreignVerdictSection } from './foreign-verdict-words.ts';
import { forEachItem } from './for-each-item.ts';
import { planCheck, verdictCheck } from './render-check-run.ts';
import { renderPlanComment, type PlanSummary, type RepoLinks } from './render-plan-comment.ts';
import { validateContext } from './check-names.ts';
import type { NoManifests } from '../engine/report/pass-report.ts';
import { changeUsageOf, namespacesResized, type ChangeUsage } from '../usage/change-usage.ts';
import { readVolumeUsage } from '../usage/read-volume-usage.ts';
import { maxUsageReadMs, type UsageSource } from '../usage/size-proposals.ts';

export interface PullRequestCheck {
  number: number;
  headSha: string;
  /** `error`: not validated (a fork's pull request under `forks: neutral`), so never a passing status. */
  state: 'success' | 'failure' | 'error';
  description: string;
  markdown: string;
  status: WriteOutcome;
  comment: WriteOutcome;
  /** Verdicts of the check's name on the head that this tool did not write (said in the comment and the log). */
  foreign: ForeignVerdict[];
}

/** Something that could not be published; the other pull requests and StatefulSets were still served. */
export interface FeedbackFailure {
  /** `pull request #12`, `progress of db/pg`. */
  item: string;
  error: string;
}

/**
 * What a status on a fork's pull request says when it is not planned: never capacities, quotas or API server
 * messages. It is an `error`, never a `success`: a required check must not pass on a size change nobody checked.
 * It says how to have it checked (at most 140 characters, GitHub's limit).
 */
/** The open write-back pull requests by template key (`namespace/statefulset/template` -> URL), read when first asked. */
export type WriteBackLinks = () => Promise<ReadonlyMap<string, string>>;

export const forkNotValidated = 'not validated (from a fork): push the branch to this repository, or set pullRequests.forks: validate';

export async function validatePullRequests(input: {
  host: ReviewHost; repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; branch: string; links: RepoLinks;
  failures: FeedbackFailure[];
  /** Whether there is time for one more item; the items left are listed in `deferred` for the next pass. */
  hasTime?: () => boolean; deferred?: string[];
  /** `neutral`: a fork's pull request is not planned against the cluster; `validate`: it is, and told only a verdict. */
  forks: 'neutral' | 'validate';
  /** Only this pull request (its own webhook event): the others' heads have not moved. */
  only?: number;
  /** The target's Prometheus: each size change's check shows its replicas' usage now and after (read once per run). */
  usage?: UsageSource;
  /** The clock usage is read at (tests play one); the real time by default. */
  now?: () => Date;
  /** The open write-back pull requests by template key, read only when a plan has a blocked "decrease" to link. */
  writeBackLinks?: WriteBackLinks | undefined;
}): Promise<PullRequestCheck[]> {
  const { host, branch } = input;
  const open = await host.openPullRequests(branch);
  const failed = (pr: { number: number }, error: string): undefined => { input.failures.push({ item: `pull request #${pr.number}`, error }); return undefined; };
  // First every pull request is planned (one that cannot be costs only itself), then usage is read once for the
  // namespaces all of them resize, then each check is written: a fixed number of queries per run, not per pull request.
  const prepared = await forEachItem(input.only === undefined ? open : open.filter((p) => p.number === input.only), {
    hasTime: input.hasTime,
    onDeferred: (pr) => input.deferred?.push(`check of pull request #${pr.number}`),
    onFailed: failed,
  }, (pr) => preparePullRequest(input, pr));
  const usageOf = await changeUsageReader(input.usage, prepared.flatMap((p) => (p.planned ? [p.planned.statefulSets] : [])), input.now?.() ?? new Date());
  // A blocked "decrease" links the write-back pull request that sets Git to the live size: read only when there is one.
  const decrease = prepared.some((p) => p.planned?.statefulSets.some((s) => s.templates.some((t) => t.reasonCodes?.includes('below-capacity'))) === true);
  const writeBack = decrease ? await input.writeBackLinks?.() : undefined;
  return forEachItem(prepared, { onDeferred: () => undefined, onFailed: (p, error) => failed(p.pr, error) }, (p) => p.publish(usageOf, writeBack));
}

/** A pull request planned and ready to publish, with the usage its check shows decided only when it is written. */
interface PreparedCheck {
  pr: { number: number };
  planned?: PlannedHead;
  publish: (usageOf: UsageOf, writeBackLinks: ReadonlyMap<string, string> | undefined) => Promise<PullRequestCheck | undefined>;
}

/** What a plan's check shows of usage: undefined where usage is not configured or the plan resizes nothing. */
type UsageOf = (statefulSets: readonly StatefulSetReport[]) => ChangeUsage | undefined;

/** One read of the namespaces every plan resizes (none when there are none, or no Prometheus); its answer for each plan. */
export async function changeUsageReader(source: UsageSource | undefined, plans: ReadonlyArray<readonly StatefulSetReport[]>, at: Date): Promise<UsageOf> {
  const namespaces = namespacesResized(plans);
  if (!source || namespaces.length === 0) return () => undefined;
  // Never rejects: every failure is typed, and said in the checks it would have informed, their verdicts unchanged.
  // A check shows bytes, never inodes (change-usage.ts): the inode queries ask only for volumes whose inodes are full.
  const reading = await readVolumeUsage(source.endpoint, namespaces, at, Math.min(maxUsageReadMs, source.timeoutMs()), 100);
  return (statefulSets) => changeUsageOf(statefulSets, reading, source.endpoint.url);
}

async function preparePullRequest(
  input: { host: ReviewHost; repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; links: RepoLinks; forks: 'neutral' | 'validate'; now?: () => Date },
  pr: { number: number; headSha: string; fromFork: boolean; htmlUrl: string },
): Promise<PreparedCheck | undefined> {
  const { host, target } = input;
  const touched = touchedFiles(target, await host.changedFiles(pr.number));
  if (touched.size === 0) return undefined;
  const context = validateContext(target.name);
  // Read before this tool writes its own: what else meets the check's name on this head.
  const foreign = await host.foreignVerdicts(pr.headSha, context);
  // Whoever opens a fork's pull request reads its statuses and comments: by default it is not checked at all; when
  // validated, it is told what Git alone decides, and nothing the cluster does (usage included).
  if (pr.fromFork && input.forks === 'neutral') {
    return {
      pr, publish: async () => {
        const status = await host.ensureCheck(pr.headSha, verdictCheck(context, 'error', forkNotValidated));
        return { number: pr.number, headSha: pr.headSha, state: 'error', description: forkNotValidated, markdown: '', status, comment: 'unchanged', foreign };
      },
    };
  }
  if (pr.fromFork) {
    // Judged from Git alone (fork-verdict.ts): the cluster is not read, so nothing the fork is told, nor when, depends on it.
    const check = await forkCheck(input, context, pr.headSha, touched);
    return {
      pr, publish: async () => {
        const status = await host.ensureCheck(pr.headSha, check);
        return { number: pr.number, headSha: pr.headSha, state: check.state, description: check.description, markdown: '', status, comment: 'unchanged', foreign };
      },
    };
  }
  const head = await planHead(input, pr.headSha, touched);
  return { pr, planned: head, publish: (usageOf, writeBack) => publishPlan(input, pr, context, foreign, renderPlanned(input, head, usageOf(head.statefulSets), writeBack)) };
}

async function publishPlan(
  input: { host: ReviewHost; target: PassTarget }, pr: { number: number; headSha: string; htmlUrl: string }, context: string,
  foreign: ForeignVerdict[], planned: { plan: PlanSummary; statefulSets: StatefulSetReport[]; errors: LocatedError[]; writeBackLinks?: ReadonlyMap<string, string> | undefined },
): Promise<PullRequestCheck> {
  const { host, target } = input;
  const summary = planned.plan;
  const key = `plan:${target.name}`;
  const markdown = `${summary.markdown}${foreignVerdictSection(foreign, context)}`;
  if (host.writesCheckRuns) {
    // A check run carries the plan itself and is what the reviewer waits for: it goes first (GitHub wants writes a
    // second apart), linking the pull request; the comment follows.
    const status = await host.ensureCheck(pr.headSha, planCheck({ context, ...planned, targetUrl: pr.htmlUrl }));
    const comment = await host.ensureComment(pr.number, key, markdown);
    return { number: pr.number, headSha: pr.headSha, state: summary.state, description: summary.description, markdown, status, comment: comment.outcome, foreign };
  }
  const comment = await host.ensureComment(pr.number, key, markdown);
  const status = await host.ensureCheck(pr.headSha, planCheck({ context, ...planned, targetUrl: comment.url }));
  return { number: pr.number, headSha: pr.headSha, state: summary.state, description: summary.description, markdown, status, comment: comment.outcome, foreign };
}

/** A fork's check under `forks: validate`: its head and the branch's, read from Git, judged by forkVerdict. */
async function forkCheck(input: { repository: GitHistoryPort; target: PassTarget }, context: string, headSha: string, touched: ReadonlySet<string>): Promise<ForkCheck> {
  const { repository, target } = input;
  const head = await repository.readCommit(headSha);
  const base = await repository.readBranchHead();
  const desired = readTargetDesired(head.files, target);
  return forkVerdict({
    context, touched, scope: namespaceScopeOf(target), noManifests: readsNothing(noManifestsAt(head, target)),
    head: { ...desired, errors: desired.errors.filter((e) => touched.has(e.path)) }, base: readTargetDesired(base.files, target),
  });
}

/** The files among `changed` that the target reads: manifests its globs match, and files its size sources map. */
export function touchedFiles(target: PassTarget, changed: readonly string[]): Set<string> {
  const mappedFiles = new Set((target.sizeSources ?? []).map((s) => s.file));
  return new Set(changed.filter((f) => matchesManifestGlobs(f, target.globs) || mappedFiles.has(f)));
}

/** A commit planned: the reports, the errors, and what its comment says beside them; rendered once usage is known. */
export interface PlannedHead {
  headSha: string;
  statefulSets: StatefulSetReport[];
  errors: LocatedError[];
  server?: string;
  noManifests?: NoManifests;
  /** Why the head was not read at all (more than a pass reads). */
  unread?: string;
}

/** The plan of the StatefulSets and mapped values in `touched` at `headSha`, against the live cluster (dry runs only). */
export async function planHead(
  input: { repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; now?: () => Date }, headSha: string, touched: ReadonlySet<string>,
): Promise<PlannedHead> {
  const { repository, target, cluster } = input;
  let head;
  try {
    head = await repository.readCommit(headSha);
  } catch (error) {
    if (!(error instanceof SourceTooLargeError)) throw error;
    // More than a pass reads: this commit's check says so, and the pass and the other pull requests go on.
    return { headSha, statefulSets: [], errors: [], unread: error.message };
  }
  const desired = readTargetDesired(head.files, target, head.tooLarge);
  const { plans, snapshot } = await planWithDryRuns({ cluster, target, ...(input.now ? { now: input.now } : {}) }, {
    statefulSets: desired.statefulSets.filter((s) => touched.has(s.location.path)),
    sizeValues: desired.sizeValues.filter((v) => touched.has(v.source.file)),
    classValues: (desired.classValues ?? []).filter((v) => touched.has(v.source.file)),
  });
  const noManifests = noManifestsAt(head, target);
  return {
    headSha, statefulSets: plans.map((plan) => reportFromPlan(plan, headSha)), errors: desired.errors.filter((e) => touched.has(e.path)),
    ...(snapshot.server ? { server: snapshot.server.gitVersion } : {}), ...(noManifests ? { noManifests } : {}),
  };
}

/** A planned commit's check and comment, with its replicas' usage when it was read. */
export function renderPlanned(
  input: { target: PassTarget; links: RepoLinks }, head: PlannedHead, usage: ChangeUsage | undefined, writeBackLinks?: ReadonlyMap<string, string>,
): { plan: PlanSummary; statefulSets: StatefulSetReport[]; errors: LocatedError[]; writeBackLinks?: ReadonlyMap<string, string> } {
  const { statefulSets, errors } = head;
  const plan = renderPlanComment({
    target: input.target.name, headSha: head.headSha, links: input.links, statefulSets, errors,
    ...(head.server !== undefined ? { server: head.server } : {}), ...(head.noManifests ? { noManifests: head.noManifests } : {}),
    ...(head.unread !== undefined ? { unread: head.unread } : {}), ...(usage ? { usage } : {}), writeBackLinks,
  });
  return { plan, statefulSets, errors, ...(writeBackLinks ? { writeBackLinks } : {}) };
}

/** One commit planned and rendered, its usage read for it alone (a merge queue's commit). */
export async function planCommit(
  input: { repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; links: RepoLinks; usage?: UsageSource; now?: () => Date },
  headSha: string, touched: ReadonlySet<string>,
): Promise<{ plan: PlanSummary; statefulSets: StatefulSetReport[]; errors: LocatedError[] }> {
  const head = await planHead(input, headSha, touched);
  const usageOf = await changeUsageReader(input.usage, [head.statefulSets], input.now?.() ?? new Date());
  return renderPlanned(input, head, usageOf(head.statefulSets));
}
