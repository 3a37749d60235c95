// Recovery pull requests for terminal expansion failures (KEP-1790): one deterministic branch per template with one
// commit that changes only the storage value's bytes (in the manifest, or in the values file a size source maps); updated only when the proposal changes; never over a person's
// push; never re-proposed after being closed unmerged; closed with a reason when the failure resolves another way.
import { parseQuantity, sameSize, type Quantity } from '../../domain/quantity.ts';
import type { GitHistoryPort, ReviewHost } from '../../engine/ports.ts';
import type { PassReport, PassTarget, StatefulSetReport, TemplateReport } from '../../engine/run-pass.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import { forEachItem } from '../../feedback/for-each-item.ts';
import { chooseRecoverySize } from './choose-recovery-size.ts';
import { editableValueIn, oneLineDiff } from '../edits/editable-value.ts';
import { classResolution, hasClassFailure, proposeClassRecovery } from './class-recovery.ts';
import {
  closedByToolLabel, describeProposal, proposalBranch, proposalBranchRoot, proposalNoun, templateKey, type ProposalIdentity, type TemplateRef,
} from '../lifecycle/identity.ts';
import { readMarker, type ProposalMark } from '../lifecycle/marker.ts';
import { publishRecovery, type RecoveryOutcome } from './recovery-pull-request.ts';
import { sizeRecoveryBody } from './recovery-texts.ts';
import { change } from '../../domain/spelling.ts';

export type { RecoveryAction, RecoveryOutcome } from './recovery-pull-request.ts';

export interface RecoveryResult {
  /** `namespace/statefulset/template` -> recovery PR URL, for statuses and progress comments. */
  links: Map<string, string>;
  outcomes: RecoveryOutcome[];
  writes: string[];
  /** Recoveries left for the next pass because the invocation ran short of time. */
  deferred: string[];
}

/** A terminal expansion failure (a refused class modification has its own recovery: class-recovery.ts). */
function hasTerminalFailure(template: TemplateReport): boolean {
  return template.action !== 'blocked' && template.pvcs.some((p) => p.state === 'failed' && p.terminal && p.failedOn !== 'class');
}

export async function manageRecoveryPullRequests(input: {
  host: ReviewHost; repository: GitHistoryPort; branch: string; target: PassTarget; report: PassReport;
  /** Whether there is time for one more template (a proposal makes up to six GitHub calls). */
  hasTime?: () => boolean;
}): Promise<RecoveryResult> {
  const { host, repository } = input;
  const writesBefore = host.writes.length;
  const result: RecoveryResult = { links: new Map(), outcomes: [], writes: [], deferred: [] };
  const timeLeft = (): boolean => input.hasTime?.() ?? true;
  const failing: Array<{ identity: ProposalIdentity; sts: StatefulSetReport; template: TemplateReport }> = [];
  for (const sts of input.report.statefulSets) {
    for (const template of sts.templates) {
      const ref = { namespace: sts.namespace, statefulSet: sts.name, template: template.templateName };
      if (hasTerminalFailure(template)) failing.push({ identity: { kind: 'size-recovery', ...ref }, sts, template });
      if (hasClassFailure(template)) failing.push({ identity: { kind: 'class-recovery', ...ref }, sts, template });
    }
  }
  // One template that cannot be proposed (a file whose value cannot be edited alone, a GitHub error) is reported
  // as failed; the other templates' recoveries and the rest of the pass go on.
  result.outcomes.push(...await forEachItem(failing, {
    hasTime: input.hasTime,
    onDeferred: ({ identity }) => result.deferred.push(describeProposal(identity.kind, templateKey(identity))),
    onFailed: ({ identity }, error): RecoveryOutcome => ({
      key: templateKey(identity), kind: identity.kind, action: 'failed', decision: undefined, pullRequestUrl: undefined, reason: `no recovery pull request could be proposed: ${error}`,
    }),
  }, (item) => (item.identity.kind === 'class-recovery' ? proposeClassRecovery : proposeRecovery)({ host, repository, ...item, input })));
  for (const outcome of result.outcomes) {
    // A class recovery is linked from its template's progress too, unless a size recovery already is.
    if (outcome.pullRequestUrl && !result.links.has(outcome.key)) result.links.set(outcome.key, outcome.pullRequestUrl);
  }
  if (timeLeft()) await closeResolved({ host, input, failing, result });
  else result.deferred.push('closing recovery pull requests that are no longer needed');
  result.writes.push(...host.writes.slice(writesBefore));
  return result;
}

async function proposeRecovery(args: {
  host: ReviewHost; repository: GitHistoryPort; identity: ProposalIdentity; sts: StatefulSetReport; template: TemplateReport;
  input: { branch: string; target: PassTarget; report: PassReport };
}): Promise<RecoveryOutcome> {
  const { host, repository, identity, sts, template, input } = args;
  const key = templateKey(identity);
  const path = template.storageLocation.path;
  const headSha = input.report.commitSha;
  const text = await repository.fileAt(headSha, path);
  const desired = text === undefined ? undefined : editableValueIn(text, path, identity, 'storage', input.target);
  if (text === undefined || !desired) return { key, kind: identity.kind, action: 'impossible', decision: undefined, pullRequestUrl: undefined, reason: `${path} no longer defines ${key} at ${headSha.slice(0, 7)}` };

  const previous = await previousGitSize(repository, input.branch, path, identity, input.target);
  const messages = [...template.pvcs.flatMap((p) => (p.message ? [p.message] : [])), ...template.failureEvents.map((e) => e.message)];
  const decision = chooseRecoverySize({
    failedSize: parseQuantity(desired.value),
    pvcs: template.pvcs.map((p) => ({ name: p.name, capacity: p.capacity ? parseQuantity(p.capacity) : undefined, terminal: p.terminal && p.failedOn !== 'class' })),
    driverMessages: messages,
    previousGitSize: previous,
  });
  if (decision.kind !== 'propose') {
    return { key, kind: identity.kind, action: 'impossible', decision, pullRequestUrl: undefined, reason: decision.kind === 'impossible' ? decision.reason : 'no terminal failure' };
  }

  const updated = desired.replace(text, decision.size);
  const published = await publishRecovery({
    host, target: input.target.name, identity, values: { from: desired.value, to: decision.size }, base: input.branch, headSha, path, proposed: decision.size,
    title: `Recover ${sts.namespace}/${sts.name} ${template.templateName}: ${change(desired.value, decision.size, 'github')} (expansion failed)`,
    body: sizeRecoveryBody({ sts, template, failed: desired.value, decision, prices: input.target.prices }),
    diff: oneLineDiff(path, desired.line, text, updated), updated,
    message: commitMessage(sts, template, desired.value, decision.size),
  });
  return { ...published, decision };
}

function commitMessage(sts: StatefulSetReport, template: TemplateReport, failed: string, size: string): string {
  return `Recover ${sts.namespace}/${sts.name} ${template.templateName}: ${change(failed, size, 'github')}\n\nThe expansion to ${failed} failed terminally; ${size} is a size Kubernetes accepts (KEP-1790).`;
}

/** The template's size before the commit that introduced the current one. */
async function previousGitSize(
  repository: GitHistoryPort, branch: string, path: string, ref: TemplateRef, target: PassTarget,
): Promise<Quantity | undefined> {
  const sizeAt = async (commit: string | undefined): Promise<Quantity | undefined> => {
    if (!commit) return undefined;
    const text = await repository.fileAt(commit, path);
    const value = text === undefined ? undefined : editableValueIn(text, path, ref, 'storage', target);
    return value && parseQuantity(value.value);
  };
  for (const commit of await repository.commitsTouching(branch, path, 10)) {
    const [now, before] = [await sizeAt(commit.sha), await sizeAt(commit.parent)];
    if (before && (!now || now.bytes !== before.bytes)) return before;
  }
  return undefined;
}

async function closeResolved(args: {
  host: ReviewHost; input: { target: PassTarget; report: PassReport };
  failing: ReadonlyArray<{ identity: ProposalIdentity }>; result: RecoveryResult;
}): Promise<void> {
  const { host, input, result } = args;
  const wanted = new Set(args.failing.map(({ identity }) => proposalBranch(input.target.name, identity)));
  const resolved = (await host.openPullRequestsFromPrefix(proposalBranchRoot)).flatMap((pr) => {
    const mark = readMarker(pr.body);
    // Ours only on the branch its own mark gives for this target (targets may share a repository).
    if (!mark || pr.headRef !== proposalBranch(input.target.name, mark.identity) || wanted.has(pr.headRef)) return [];
    const reason = resolution(input.report, mark);
    return reason === undefined ? [] : [{ pr, mark, reason }];
  });
  // One pull request that cannot be closed (locked, a 403) is reported; the others are still closed.
  result.outcomes.push(...await forEachItem(resolved, {
    onDeferred: () => undefined,
    onFailed: ({ pr, mark, reason }, error): RecoveryOutcome => ({
      key: templateKey(mark.identity), kind: mark.identity.kind, action: 'failed', decision: undefined, pullRequestUrl: pr.htmlUrl, reason: `could not close it (${reason}): ${error}`,
    }),
  }, async ({ pr, mark, reason }): Promise<RecoveryOutcome> => {
    const kind = proposalNoun(mark.identity.kind);
    await host.closePullRequest(pr.number, { comment: `Closing: ${escapeMarkdown(reason)}, so this ${kind} is no longer needed.`, branch: pr.headRef, label: closedByToolLabel, kind });
    return { key: templateKey(mark.identity), kind: mark.identity.kind, action: 'closed', decision: undefined, pullRequestUrl: pr.htmlUrl, reason };
  }));
}

/**
 * Why a recovery PR is no longer needed, only on positive evidence: the expansion completed, Git now asks for another
 * size, or a complete pass over manifests that all read cleanly no longer has the StatefulSet. A StatefulSet the pass
 * did not evaluate (not started for lack of time, a manifest error somewhere, a pass cut short) keeps its PR open.
 */
export function resolution(report: PassReport, proposal: ProposalMark): string | undefined {
  const { identity } = proposal;
  const failed = proposal.values.from ?? '';
  const sts = report.statefulSets.find((s) => s.namespace === identity.namespace && s.name === identity.statefulSet);
  const template = sts?.templates.find((t) => t.templateName === identity.template);
  if (template && identity.kind === 'class-recovery') return classResolution(template, failed);
  if (template) {
    if (!sameSize(template.desiredSize, failed)) return `the template changed in Git (now ${template.desiredSize}, was ${failed})`;
    if (template.finished) return `the expansion to ${template.desiredSize} completed`;
    return undefined; // still in flight without a terminal failure (e.g. retrying): keep the proposal open
  }
  const everythingRead = report.outcome === 'ok' && report.manifestErrors.length === 0;
  // A set the pass found in Git but did not look into (out of time, absent from the cluster) says nothing of its templates.
  const evaluated = sts === undefined || (sts.outcome !== 'not-started' && sts.outcome !== 'missing-in-cluster');
  if (everythingRead && evaluated) return `${templateKey(identity)} is no longer in Git`;
  return undefined;
}
