// Before merge: for each open PR against the target branch that touches the target's manifests or a file its size
// sources map, plan the PR head against the live cluster (reads and dry runs only) and report it as a commit status
// (a check run with annotations on the storage lines, where the App may write them) and an upserted plan comment.
import { matchesManifestGlobs } from '../domain/manifests.ts';
import { readTargetDesired } from '../engine/desired-input.ts';
import { noManifestsAt } from '../engine/no-manifests.ts';
import { gitHubRateLimitOf } from '../adapters/github/octokit.ts';
import type { ClusterPort, GitHistoryPort, ReviewHost, WriteOutcome } from '../engine/ports.ts';
import { planWithDryRuns, reportFromPlan, type PassTarget, type StatefulSetReport } from '../engine/run-pass.ts';
import type { LocatedError } from '../domain/desired-state.ts';
import { planCheck, verdictCheck } from './render-check-run.ts';
import { renderPlanComment, type PlanSummary, type RepoLinks } from './render-plan-comment.ts';
import { validateContext } from './check-names.ts';

export interface PullRequestCheck {
  number: number;
  headSha: string;
  /** `error`: not validated (a fork's pull request under `forks: neutral`), so never a passing status. */
  state: 'success' | 'failure' | 'error';
  description: string;
  markdown: string;
  status: WriteOutcome;
  comment: WriteOutcome;
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
}): Promise<PullRequestCheck[]> {
  const { host, branch } = input;
  const checks: PullRequestCheck[] = [];
  const open = await host.openPullRequests(branch);
  for (const pr of input.only === undefined ? open : open.filter((p) => p.number === input.only)) {
    if (input.hasTime && !input.hasTime()) {
      input.deferred?.push(`check of pull request #${pr.number}`);
      continue;
    }
    // One pull request whose check cannot be written (a 403, a file it cannot read) must not cost the others theirs.
    try {
      const check = await validatePullRequest(input, pr);
      if (check) checks.push(check);
    } catch (error) {
      if (gitHubRateLimitOf(error) !== undefined) throw error; // the whole step waits for the next pass
      input.failures.push({ item: `pull request #${pr.number}`, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return checks;
}

async function validatePullRequest(
  input: { host: ReviewHost; repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; links: RepoLinks; forks: 'neutral' | 'validate' },
  pr: { number: number; headSha: string; fromFork: boolean; htmlUrl: string },
): Promise<PullRequestCheck | undefined> {
  const { host, target } = input;
  const touched = touchedFiles(target, await host.changedFiles(pr.number));
  if (touched.size === 0) return undefined;
  const context = validateContext(target.name);
  // Whoever opens a fork's pull request reads its statuses and comments: by default it is not planned against the
  // production cluster at all; when validated, it learns the verdict and nothing of the cluster.
  if (pr.fromFork && input.forks === 'neutral') {
    const status = await host.ensureCheck(pr.headSha, verdictCheck(context, 'error', forkNotValidated));
    return { number: pr.number, headSha: pr.headSha, state: 'error', description: forkNotValidated, markdown: '', status, comment: 'unchanged' };
  }
  const planned = await planCommit(input, pr.headSha, touched);
  const summary = planned.plan;
  if (pr.fromFork) {
    const description = summary.state === 'success' ? 'validated against the cluster: this change can be applied'
      : 'validated against the cluster: this change cannot be applied as it is; a maintainer can see why';
    const status = await host.ensureCheck(pr.headSha, verdictCheck(context, summary.state, description));
    return { number: pr.number, headSha: pr.headSha, state: summary.state, description, markdown: '', status, comment: 'unchanged' };
  }
  const key = `plan:${target.name}`;
  if (host.writesCheckRuns) {
    // A check run carries the plan itself and is what the reviewer waits for: it goes first (GitHub wants writes a
    // second apart), linking the pull request; the comment follows.
    const status = await host.ensureCheck(pr.headSha, planCheck({ context, ...planned, targetUrl: pr.htmlUrl }));
    const comment = await host.ensureComment(pr.number, key, summary.markdown);
    return { number: pr.number, headSha: pr.headSha, state: summary.state, description: summary.description, markdown: summary.markdown, status, comment: comment.outcome };
  }
  const comment = await host.ensureComment(pr.number, key, summary.markdown);
  const status = await host.ensureCheck(pr.headSha, planCheck({ context, ...planned, targetUrl: comment.url }));
  return { number: pr.number, headSha: pr.headSha, state: summary.state, description: summary.description, markdown: summary.markdown, status, comment: comment.outcome };
}

/** The files among `changed` that the target reads: manifests its globs match, and files its size sources map. */
export function touchedFiles(target: PassTarget, changed: readonly string[]): Set<string> {
  const mappedFiles = new Set((target.sizeSources ?? []).map((s) => s.file));
  return new Set(changed.filter((f) => matchesManifestGlobs(f, target.globs) || mappedFiles.has(f)));
}

/** The plan of the StatefulSets and mapped values in `touched` at `headSha`, against the live cluster (dry runs only). */
export async function planCommit(
  input: { repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; links: RepoLinks }, headSha: string, touched: ReadonlySet<string>,
): Promise<{ plan: PlanSummary; statefulSets: StatefulSetReport[]; errors: LocatedError[] }> {
  const { repository, target, cluster, links } = input;
  const head = await repository.readCommit(headSha);
  const desired = readTargetDesired(head.files, target);
  const { plans, snapshot } = await planWithDryRuns({ cluster, target }, {
    statefulSets: desired.statefulSets.filter((s) => touched.has(s.location.path)),
    sizeValues: desired.sizeValues.filter((v) => touched.has(v.source.file)),
    classValues: (desired.classValues ?? []).filter((v) => touched.has(v.source.file)),
  });
  const statefulSets = plans.map((plan) => reportFromPlan(plan, headSha));
  const errors = desired.errors.filter((e) => touched.has(e.path));
  const noManifests = noManifestsAt(head, target);
  const plan = renderPlanComment({
    target: target.name, headSha, links, statefulSets, errors, ...(snapshot.server ? { server: snapshot.server.gitVersion } : {}),
    ...(noManifests ? { noManifests } : {}),
  });
  return { plan, statefulSets, errors };
}
