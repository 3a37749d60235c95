// The endings of replaced changes: a template's values that Git replaced before they were reached (the status
// annotation's `replaced`, engine/report/template-status.ts) each had a check on the commit that introduced them and a
// progress comment on its pull request, which last said "failed for good" and linked a recovery. While the set is
// reported, those are rewritten to say how the change ended (render-ending.ts): found again from Git's history of the
// set's file, under the same check name and comment key, so nothing is left saying it failed or proposes a size.
import type { GitHistoryPort, ReviewHost } from '../engine/ports.ts';
import type { PassTarget, StatefulSetReport } from '../engine/run-pass.ts';
import { proposalBranch, type ProposalKindName } from '../proposals/lifecycle/identity.ts';
import { renderEnding, type EndedValue } from './render-ending.ts';
import type { ProgressReport } from './render-progress.ts';
import { isValue, valueChanges, type ValueChange } from './value-history.ts';

const recoveryKinds: readonly ProposalKindName[] = ['size-recovery', 'class-recovery'];

/** Which commit introduced each replaced value, per branch head and set (history under a head never changes). */
const introducedAt = new Map<string, ReadonlyMap<string, string>>();
/** A commit's merged pull request, and whether a merged pull request is a template's recovery: neither changes once merged. */
const mergedPullRequests = new Map<string, number | undefined>();
const recoveries = new Map<string, boolean>();

export async function reportEndings(input: {
  host: ReviewHost; repository: GitHistoryPort; target: PassTarget; branch: string; headSha: string; sts: StatefulSetReport;
  /** The commit that introduced what Git asks now (where the set's own progress goes), and its pull request. */
  current: { sha: string; pullRequest: number | undefined };
  context: string; commentKey: string;
  /** This pass's open recovery pull requests, per template key (the way forward while the set still fails). */
  recoveryLinks?: ReadonlyMap<string, string> | undefined;
  /** This pass's write-back pull requests, per template key: the ending's state follows the set's own (render-progress.ts). */
  writeBackLinks?: ReadonlyMap<string, string> | undefined;
}): Promise<ProgressReport[]> {
  const { host, sts, current } = input;
  const ended: EndedValue[] = sts.templates.flatMap((template) => (template.replaced ?? []).map((replaced) => ({ template, replaced })));
  if (ended.length === 0) return [];
  const commits = await commitsOf(input, ended);
  const byCommit = new Map<string, EndedValue[]>();
  for (const value of ended) {
    const sha = commits.get(valueKey(value));
    // A value whose commit history no longer holds (rewritten, squashed away) has nothing left to correct.
    if (sha === undefined || sha === current.sha) continue;
    byCommit.set(sha, [...byCommit.get(sha) ?? [], value]);
  }
  const recovered = new Set<string>();
  if (current.pullRequest !== undefined) {
    for (const template of new Set(ended.map((e) => e.template.templateName))) {
      if (await isRecovery(host, input.target.name, sts, template, current.pullRequest)) recovered.add(template);
    }
  }
  const reports: ProgressReport[] = [];
  for (const [sha, values] of byCommit) {
    const pullRequest = await mergedPullRequestFor(host, sha);
    const summary = renderEnding({ target: input.target.name, sts, commitSha: sha, ended: values, by: { ...current, recovered }, recoveryLinks: input.recoveryLinks, writeBackLinks: input.writeBackLinks });
    const comment = pullRequest === undefined ? undefined : await host.ensureComment(pullRequest, input.commentKey, summary.markdown);
    const status = await host.ensureCheck(sha, {
      context: input.context, state: summary.state, description: summary.description, ...(comment ? { targetUrl: comment.url } : {}),
      title: summary.title, summary: summary.markdown, annotations: [], ...(summary.neutral ? { neutral: true } : {}),
    });
    reports.push({ statefulSet: `${sts.namespace}/${sts.name}`, commitSha: sha, pullRequest, state: summary.state, description: summary.description, markdown: summary.markdown, status, comment: comment?.outcome });
  }
  return reports;
}

/** The commit that introduced each replaced value: the newest value change before the current one that left it. */
async function commitsOf(
  input: { repository: GitHistoryPort; target: PassTarget; branch: string; headSha: string; sts: StatefulSetReport },
  ended: readonly EndedValue[],
): Promise<ReadonlyMap<string, string>> {
  const { sts } = input;
  const path = sts.templates[0]?.storageLocation.path ?? '';
  const key = `${input.headSha}:${path}:${sts.namespace}/${sts.name}:${ended.map(valueKey).join(',')}`;
  const cached = introducedAt.get(key);
  if (cached) return cached;
  const match = (changes: readonly ValueChange[], e: EndedValue): string | undefined =>
    changes.slice(1).find((c) => isValue(c.values.get(e.template.templateName), e.replaced.desiredSize, e.replaced.desiredClass))?.sha;
  const changes = await valueChanges(input.repository, input.branch, path, sts, input.target, (found) => found.length > 0 && ended.every((e) => match(found, e) !== undefined));
  const result = new Map(ended.flatMap((e) => {
    const sha = match(changes, e);
    return sha === undefined ? [] : [[valueKey(e), sha] as const];
  }));
  introducedAt.set(key, result);
  return result;
}

function valueKey(e: EndedValue): string {
  return JSON.stringify([e.template.templateName, e.replaced.desiredSize, e.replaced.desiredClass ?? null]);
}

async function mergedPullRequestFor(host: ReviewHost, sha: string): Promise<number | undefined> {
  if (mergedPullRequests.has(sha)) return mergedPullRequests.get(sha);
  const number = await host.mergedPullRequestFor(sha);
  if (number !== undefined) mergedPullRequests.set(sha, number);
  return number;
}

/** Whether pull request `number`, merged, is this tool's recovery of the template (from its recovery branch). */
async function isRecovery(host: ReviewHost, target: string, sts: StatefulSetReport, template: string, number: number): Promise<boolean> {
  const key = `${target}:${sts.namespace}/${sts.name}/${template}:${number}`;
  const known = recoveries.get(key);
  if (known !== undefined) return known;
  let found = false;
  for (const kind of recoveryKinds) {
    const pulls = await host.pullRequestsFrom(proposalBranch(target, { kind, namespace: sts.namespace, statefulSet: sts.name, template }));
    if (pulls.some((p) => p.merged && p.number === number)) found = true;
  }
  recoveries.set(key, found);
  return found;
}
