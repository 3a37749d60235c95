// Recovery pull requests for terminal expansion failures (KEP-1790): one deterministic branch per template with one
// commit that changes only the storage value's bytes (in the manifest, or in the values file a size source maps); updated only when the proposal changes; never over a person's
// push; never re-proposed after being closed unmerged; closed with a reason when the failure resolves another way.
import { gitHubRateLimitOf } from '../adapters/github/octokit.ts';
import { readDesiredState, replaceStorageValue } from '../domain/manifests.ts';
import { parseQuantity, sameSize, type Quantity } from '../domain/quantity.ts';
import type { GitHistoryPort, ReviewHost } from '../engine/ports.ts';
import type { PassReport, PassTarget, StatefulSetReport, TemplateReport } from '../engine/run-pass.ts';
import { escapeMarkdown } from '../feedback/escape-markdown.ts';
import { chooseRecoverySize } from './choose-recovery-size.ts';
import { findSizeValue, mapsClass, replaceSizeValue } from '../domain/size-sources.ts';
import {
  classKeySuffix, classRecoveryKey, classResolution, hasClassFailure, isClassRecoveryKey, proposeClassRecovery,
} from './class-recovery.ts';
import { marker, oneLineDiff, publishRecovery, recoveryBranch, type RecoveryOutcome } from './recovery-pull-request.ts';
import { sizeRecoveryBody } from './recovery-texts.ts';
import { change } from '../domain/spelling.ts';

export { recoveryBranch, type RecoveryAction, type RecoveryOutcome } from './recovery-pull-request.ts';

export interface RecoveryResult {
  /** `namespace/statefulset/template` -> recovery PR URL, for statuses and progress comments. */
  links: Map<string, string>;
  outcomes: RecoveryOutcome[];
  writes: string[];
  /** Recoveries left for the next pass because the invocation ran short of time. */
  deferred: string[];
}

function parseMarker(body: string): { key: string; failed: string; proposed: string } | undefined {
  const match = /<!-- sts-volume-gitops:recovery key=(\S+) failed=(\S+) proposed=(\S+) -->/.exec(body);
  return match ? { key: match[1] ?? '', failed: match[2] ?? '', proposed: match[3] ?? '' } : undefined;
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
  const failing = new Map<string, { sts: StatefulSetReport; template: TemplateReport }>();
  for (const sts of input.report.statefulSets) {
    for (const template of sts.templates) {
      if (hasTerminalFailure(template)) failing.set(`${sts.namespace}/${sts.name}/${template.templateName}`, { sts, template });
      if (hasClassFailure(template)) failing.set(classRecoveryKey(sts, template.templateName), { sts, template });
    }
  }
  for (const [key, { sts, template }] of failing) {
    if (!timeLeft()) {
      result.deferred.push(`recovery of ${key}`);
      continue;
    }
    // One template that cannot be proposed (a file whose value cannot be edited alone, a GitHub error) is reported
    // as failed; the other templates' recoveries and the rest of the pass go on.
    const propose = isClassRecoveryKey(key) ? proposeClassRecovery : proposeRecovery;
    const outcome = await propose({ host, repository, key, sts, template, input })
      .catch((error: unknown): RecoveryOutcome => {
        if (gitHubRateLimitOf(error) !== undefined) throw error; // the whole step waits for the next pass
        return { key, action: 'failed', decision: undefined, pullRequestUrl: undefined, reason: `no recovery pull request could be proposed: ${messageOf(error)}` };
      });
    result.outcomes.push(outcome);
    // A class recovery is linked from its template's progress too, unless a size recovery already is.
    const linkKey = isClassRecoveryKey(key) ? key.slice(0, -classKeySuffix.length) : key;
    if (outcome.pullRequestUrl && !result.links.has(linkKey)) result.links.set(linkKey, outcome.pullRequestUrl);
  }
  if (timeLeft()) await closeResolved({ host, input, failing, result });
  else result.deferred.push('closing recovery pull requests that are no longer needed');
  result.writes.push(...host.writes.slice(writesBefore));
  return result;
}

async function proposeRecovery(args: {
  host: ReviewHost; repository: GitHistoryPort; key: string; sts: StatefulSetReport; template: TemplateReport;
  input: { branch: string; target: PassTarget; report: PassReport };
}): Promise<RecoveryOutcome> {
  const { host, repository, key, sts, template, input } = args;
  const path = template.storageLocation.path;
  const headSha = input.report.commitSha;
  const text = await repository.fileAt(headSha, path);
  const desired = text === undefined ? undefined : sizeIn(text, path, sts, template.templateName, input.target);
  if (text === undefined || !desired) return { key, action: 'impossible', decision: undefined, pullRequestUrl: undefined, reason: `${path} no longer defines ${key} at ${headSha.slice(0, 7)}` };

  const previous = await previousGitSize(repository, input.branch, path, sts, template.templateName, input.target);
  const messages = [...template.pvcs.flatMap((p) => (p.message ? [p.message] : [])), ...template.failureEvents.map((e) => e.message)];
  const decision = chooseRecoverySize({
    failedSize: desired.storage,
    pvcs: template.pvcs.map((p) => ({ name: p.name, capacity: p.capacity ? parseQuantity(p.capacity) : undefined, terminal: p.terminal && p.failedOn !== 'class' })),
    driverMessages: messages,
    previousGitSize: previous,
  });
  if (decision.kind !== 'propose') {
    return { key, action: 'impossible', decision, pullRequestUrl: undefined, reason: decision.kind === 'impossible' ? decision.reason : 'no terminal failure' };
  }

  const branch = recoveryBranch(input.target.name, sts.namespace, sts.name, template.templateName);
  const proposalMarker = marker(key, desired.storageText, decision.size);
  const updated = desired.replace(text, decision.size);
  const published = await publishRecovery({
    host, branch, base: input.branch, headSha, key, path, proposed: decision.size, proposalMarker,
    title: `Recover ${sts.namespace}/${sts.name} ${template.templateName}: ${change(desired.storageText, decision.size, 'github')} (expansion failed)`,
    body: sizeRecoveryBody({ sts, template, failed: desired.storageText, decision, proposalMarker, prices: input.target.prices }),
    diff: oneLineDiff(path, desired.line, text, updated), updated,
    message: commitMessage(sts, template, desired.storageText, decision.size, decision.rule === 'at-driver-maximum' ? decision.explanation : undefined),
  });
  return { ...published, decision };
}

function commitMessage(sts: StatefulSetReport, template: TemplateReport, failed: string, size: string, atMaximum: string | undefined): string {
  return `Recover ${sts.namespace}/${sts.name} ${template.templateName}: ${change(failed, size, 'github')}\n\nThe expansion to ${failed} failed terminally; ${atMaximum ?? `${size} is a size Kubernetes accepts (KEP-1790)`}.`;
}

/** A template's size as written in one file, and how to rewrite only its bytes. */
interface EditableSize {
  storage: Quantity;
  storageText: string;
  line: number;
  replace(text: string, size: string): string;
}

/** The size in `text`: the mapped value when a size source sizes the template, else the manifest's storage request. */
function sizeIn(text: string, path: string, sts: StatefulSetReport, name: string, target: PassTarget): EditableSize | undefined {
  const mapping = (target.sizeSources ?? []).find((s) => s.statefulSet === `${sts.namespace}/${sts.name}` && s.template === name && !mapsClass(s));
  if (mapping) {
    const value = mapping.file === path ? findSizeValue(text, mapping) : undefined;
    return value && { storage: value.storage, storageText: value.storage.text, line: value.location.line, replace: (t, size) => replaceSizeValue(t, value, size) };
  }
  const state = readDesiredState(new Map([[path, text]]), { globs: [path], defaultNamespace: target.defaultNamespace });
  const found = state.statefulSets.find((s) => s.namespace === sts.namespace && s.name === sts.name)?.templates.find((t) => t.name === name);
  return found && { storage: found.storage, storageText: found.storageText, line: found.storageLocation.line, replace: (t, size) => replaceStorageValue(t, found, size) };
}

/** The template's size before the commit that introduced the current one. */
async function previousGitSize(
  repository: GitHistoryPort, branch: string, path: string, sts: StatefulSetReport, name: string, target: PassTarget,
): Promise<Quantity | undefined> {
  const sizeAt = async (ref: string | undefined): Promise<Quantity | undefined> => {
    if (!ref) return undefined;
    const text = await repository.fileAt(ref, path);
    return text === undefined ? undefined : sizeIn(text, path, sts, name, target)?.storage;
  };
  for (const commit of await repository.commitsTouching(branch, path, 10)) {
    const [now, before] = [await sizeAt(commit.sha), await sizeAt(commit.parent)];
    if (before && (!now || now.bytes !== before.bytes)) return before;
  }
  return undefined;
}

async function closeResolved(args: {
  host: ReviewHost; input: { target: PassTarget; report: PassReport };
  failing: ReadonlyMap<string, { sts: StatefulSetReport; template: TemplateReport }>; result: RecoveryResult;
}): Promise<void> {
  const { host, input, failing, result } = args;
  const prefix = `sts-volume-gitops/recover/${input.target.name}/`;
  for (const pr of await host.openPullRequestsFromPrefix(prefix)) {
    const parsed = parseMarker(pr.body);
    if (!parsed || failing.has(parsed.key)) continue;
    const reason = resolution(input.report, parsed);
    if (reason === undefined) continue;
    // One pull request that cannot be closed (locked, a 403) is reported; the others are still closed.
    try {
      await host.closePullRequest(pr.number, `Closing: ${escapeMarkdown(reason)}, so this recovery is no longer needed.`, pr.headRef);
      result.outcomes.push({ key: parsed.key, action: 'closed', decision: undefined, pullRequestUrl: pr.htmlUrl, reason });
    } catch (error) {
      if (gitHubRateLimitOf(error) !== undefined) throw error;
      result.outcomes.push({ key: parsed.key, action: 'failed', decision: undefined, pullRequestUrl: pr.htmlUrl, reason: `could not close it (${reason}): ${messageOf(error)}` });
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why a recovery PR is no longer needed, only on positive evidence: the expansion completed, Git now asks for another
 * size, or a complete pass over manifests that all read cleanly no longer has the StatefulSet. A StatefulSet the pass
 * did not evaluate (not started for lack of time, a manifest error somewhere, a pass cut short) keeps its PR open.
 */
export function resolution(report: PassReport, proposal: { key: string; failed: string }): string | undefined {
  const forClass = isClassRecoveryKey(proposal.key);
  const [namespace, name, templateName] = (forClass ? proposal.key.slice(0, -classKeySuffix.length) : proposal.key).split('/');
  const sts = report.statefulSets.find((s) => s.namespace === namespace && s.name === name);
  const template = sts?.templates.find((t) => t.templateName === templateName);
  if (template && forClass) return classResolution(template, proposal.failed);
  if (template) {
    if (!sameSize(template.desiredSize, proposal.failed)) return `the template changed in Git (now ${template.desiredSize}, was ${proposal.failed})`;
    if (template.finished) return `the expansion to ${template.desiredSize} completed`;
    return undefined; // still in flight without a terminal failure (e.g. retrying): keep the proposal open
  }
  const everythingRead = report.outcome === 'ok' && report.manifestErrors.length === 0;
  // A set the pass found in Git but did not look into (out of time, absent from the cluster) says nothing of its templates.
  const evaluated = sts === undefined || (sts.outcome !== 'not-started' && sts.outcome !== 'missing-in-cluster');
  if (everythingRead && evaluated) return `${proposal.key} is no longer in Git`;
  return undefined;
}
