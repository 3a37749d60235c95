// After merge: for each StatefulSet still resizing (or that just finished), find the commit that introduced its sizes,
// set a status (a check run with App auth) on it and upsert a progress comment on the pull request that merged it.
import { readDesiredState } from '../domain/manifests.ts';
import type { GitHistoryPort, ReviewHost, WriteOutcome } from '../engine/ports.ts';
import type { PassReport, PassTarget, StatefulSetReport } from '../engine/run-pass.ts';
import { readSizeSources } from '../domain/size-sources.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';
import { forEachItem } from './for-each-item.ts';
import { renderProgressComment, type RecoveryNotes } from './render-progress.ts';
import type { FeedbackFailure } from './validate-pull-requests.ts';
import { progressContext } from './check-names.ts';

export interface ProgressReport {
  statefulSet: string;
  commitSha: string;
  pullRequest: number | undefined;
  state: 'pending' | 'success' | 'failure';
  description: string;
  markdown: string;
  status: WriteOutcome;
  comment: WriteOutcome | undefined;
}

const reportable = new Set<StatefulSetReport['outcome']>(['in-progress', 'waiting', 'blocked', 'failed', 'stalled', 'converged']);

/** Introducing commits never change for a given branch head, so they are remembered for the process's life. */
const introducedBy = new Map<string, string>();

export async function reportProgress(input: {
  host: ReviewHost; repository: GitHistoryPort; target: PassTarget; branch: string; report: PassReport; recoveryLinks?: ReadonlyMap<string, string>;
  recoveryNotes?: RecoveryNotes; failures: FeedbackFailure[];
  hasTime?: () => boolean; deferred?: string[];
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
  input: { host: ReviewHost; repository: GitHistoryPort; target: PassTarget; branch: string; report: PassReport; recoveryLinks?: ReadonlyMap<string, string>; recoveryNotes?: RecoveryNotes },
  sts: StatefulSetReport,
): Promise<ProgressReport> {
  const { host, repository, target, branch, report } = input;
  const path = sts.templates[0]?.storageLocation.path ?? '';
  const commitSha = await introducingCommit(repository, branch, path, sts, report.commitSha, target);
  const pullRequest = await host.mergedPullRequestFor(commitSha);
  const summary = renderProgressComment({
    target: target.name, sts, commitSha,
    ...(input.recoveryLinks ? { recoveryLinks: input.recoveryLinks } : {}), ...(input.recoveryNotes ? { recoveryNotes: input.recoveryNotes } : {}),
  });
  const comment = pullRequest === undefined ? undefined
    : await host.ensureComment(pullRequest, `progress:${target.name}:${sts.namespace}/${sts.name}`, summary.markdown);
  const recovery = sts.templates.map((t) => input.recoveryLinks?.get(templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: t.templateName })))
    .find((l) => l !== undefined);
  const targetUrl = summary.state === 'failure' ? recovery ?? comment?.url : comment?.url;
  // A check run (App auth) carries the progress table itself; its lines may have moved since that commit, so no annotations.
  const status = await host.ensureCheck(commitSha, {
    context: progressContext(target.name, sts), state: summary.state, description: summary.description, ...(targetUrl ? { targetUrl } : {}),
    title: summary.title, summary: summary.markdown, annotations: [],
  });
  return { statefulSet: `${sts.namespace}/${sts.name}`, commitSha, pullRequest, state: summary.state, description: summary.description, markdown: summary.markdown, status, comment: comment?.outcome };
}

/**
 * The newest commit on the branch touching the file where a storage value (or a volumeAttributesClassName) of this
 * StatefulSet differs from its parent.
 */
async function introducingCommit(
  repository: GitHistoryPort, branch: string, path: string, sts: StatefulSetReport, headSha: string, target: PassTarget,
): Promise<string> {
  const key = `${headSha}:${path}:${sts.namespace}/${sts.name}`;
  const cached = introducedBy.get(key);
  if (cached) return cached;
  const sizesAt = async (ref: string | undefined): Promise<string | undefined> => {
    if (!ref) return undefined;
    const text = await repository.fileAt(ref, path);
    if (text === undefined) return undefined;
    // A set sized by size sources changed where its mapped value changed.
    const mapped = (target.sizeSources ?? []).filter((s) => s.statefulSet === `${sts.namespace}/${sts.name}` && s.file === path);
    if (mapped.length > 0) {
      const read = readSizeSources(new Map([[path, text]]), mapped);
      const values = [...read.values.map((v) => `${v.template}=${v.storage.bytes}`), ...read.classValues.map((v) => `${v.template}@${v.className}`)];
      return values.length > 0 ? values.join(',') : undefined;
    }
    const state = readDesiredState(new Map([[path, text]]), { globs: [path], defaultNamespace: target.defaultNamespace });
    const found = state.statefulSets.find((s) => s.namespace === sts.namespace && s.name === sts.name);
    return found ? found.templates.map((t) => `${t.name}=${t.storage.bytes}${t.volumeAttributesClassName !== undefined ? `@${t.volumeAttributesClassName}` : ''}`).join(',') : undefined;
  };
  let result = headSha;
  for (const commit of await repository.commitsTouching(branch, path)) {
    if (await sizesAt(commit.sha) !== await sizesAt(commit.parent)) {
      result = commit.sha;
      break;
    }
  }
  introducedBy.set(key, result);
  return result;
}
