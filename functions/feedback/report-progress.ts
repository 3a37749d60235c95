// After merge: for each StatefulSet still resizing (or that just finished), find the commit that introduced its sizes,
// set a status (a check run with App auth) on it and upsert a progress comment on the pull request that merged it.
import type { GitHistoryPort, ReviewHost } from '../engine/ports.ts';
import type { PassReport, PassTarget, StatefulSetReport } from '../engine/run-pass.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import { forEachItem } from './for-each-item.ts';
import { reportEndings } from './report-endings.ts';
import { valueChanges } from './value-history.ts';
import { renderProgressComment, type ProgressReport, type RecoveryNotes } from './render-progress.ts';
import type { FeedbackFailure } from './validate-pull-requests.ts';
import { progressContext } from './check-names.ts';

export type { ProgressReport } from './render-progress.ts';

const reportable = new Set<StatefulSetReport['outcome']>(['in-progress', 'waiting', 'blocked', 'failed', 'stalled', 'converged']);

/** Introducing commits never change for a given branch head, so they are remembered for the process's life. */
const introducedBy = new Map<string, string>();

export async function reportProgress(input: {
  host: ReviewHost; repository: GitHistoryPort; target: PassTarget; branch: string; report: PassReport; recoveryLinks?: ReadonlyMap<string, string>;
  recoveryNotes?: RecoveryNotes; writeBackLinks?: ReadonlyMap<string, string>; proposals?: readonly ProposalOutcome[]; failures: FeedbackFailure[];
  hasTime?: () => boolean; deferred?: string[];
  /** Where the checks and comments of changes Git replaced before they were reached are reported (report-endings.ts). */
  endings?: ProgressReport[];
}): Promise<ProgressReport[]> {
  const moving = input.report.statefulSets.filter((sts) => reportable.has(sts.outcome) && sts.templates.length > 0
    && !sts.templates.every((t) => t.finished && !t.justFinished));
  // One StatefulSet whose status or comment cannot be written must not cost the others theirs.
  return forEachItem(moving, {
    hasTime: input.hasTime,
    onDeferred: (sts) => input.deferred?.push(`progress of ${sts.namespace}/${sts.name}`),
    onFailed: (sts, error) => { input.failures.push({ item: `progress of ${sts.namespace}/${sts.name}`, error }); return undefined; },
  }, (sts) => reportStatefulSet(input, sts));
}

async function reportStatefulSet(
  input: {
    host: ReviewHost; repository: GitHistoryPort; target: PassTarget; branch: string; report: PassReport; recoveryLinks?: ReadonlyMap<string, string>;
    recoveryNotes?: RecoveryNotes; writeBackLinks?: ReadonlyMap<string, string>; proposals?: readonly ProposalOutcome[]; endings?: ProgressReport[];
  },
  sts: StatefulSetReport,
): Promise<ProgressReport> {
  const { host, repository, target, branch, report } = input;
  const path = sts.templates[0]?.storageLocation.path ?? '';
  const commitSha = await introducingCommit(repository, branch, path, sts, report.commitSha, target);
  const pullRequest = await host.mergedPullRequestFor(commitSha);
  const summary = renderProgressComment({
    target: target.name, sts, commitSha,
    ...(input.recoveryLinks ? { recoveryLinks: input.recoveryLinks } : {}), ...(input.recoveryNotes ? { recoveryNotes: input.recoveryNotes } : {}),
    ...(input.writeBackLinks ? { writeBackLinks: input.writeBackLinks } : {}), ...(input.proposals ? { proposals: input.proposals } : {}),
  });
  const commentKey = `progress:${target.name}:${sts.namespace}/${sts.name}`;
  const comment = pullRequest === undefined ? undefined : await host.ensureComment(pullRequest, commentKey, summary.markdown);
  const keys = sts.templates.map((t) => templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: t.templateName }));
  // A failure links its way out: the recovery pull request, else the write-back one (a blocked "decrease").
  const recovery = keys.map((k) => input.recoveryLinks?.get(k)).find((l) => l !== undefined) ?? keys.map((k) => input.writeBackLinks?.get(k)).find((l) => l !== undefined);
  const targetUrl = summary.link ?? (summary.state === 'failure' ? recovery ?? comment?.url : comment?.url);
  // A check run (App auth) carries the progress table itself; its lines may have moved since that commit, so no annotations.
  const context = progressContext(target.name, sts);
  const status = await host.ensureCheck(commitSha, {
    context, state: summary.state, description: summary.description, ...(targetUrl ? { targetUrl } : {}),
    title: summary.title, summary: summary.markdown, annotations: [],
  });
  input.endings?.push(...await reportEndings({ host, repository, target, branch, headSha: report.commitSha, sts, current: { sha: commitSha, pullRequest }, context, commentKey, recoveryLinks: input.recoveryLinks, writeBackLinks: input.writeBackLinks }));
  return { statefulSet: `${sts.namespace}/${sts.name}`, commitSha, pullRequest, state: summary.state, description: summary.description, markdown: summary.markdown, status, comment: comment?.outcome };
}

/** The newest commit on the branch where a storage value (or a volumeAttributesClassName) of this StatefulSet changed. */
async function introducingCommit(
  repository: GitHistoryPort, branch: string, path: string, sts: StatefulSetReport, headSha: string, target: PassTarget,
): Promise<string> {
  const key = `${headSha}:${path}:${sts.namespace}/${sts.name}`;
  const cached = introducedBy.get(key);
  if (cached) return cached;
  const [newest] = await valueChanges(repository, branch, path, sts, target, (found) => found.length > 0);
  const result = newest?.sha ?? headSha;
  introducedBy.set(key, result);
  return result;
}
