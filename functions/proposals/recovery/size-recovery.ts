// Recovery from a terminal expansion failure (KEP-1790): a size Kubernetes accepts (choose-recovery-size.ts), proposed
// where the size lives (the manifest, or the values file a size source maps: only that value's bytes change), as a
// proposal of kind size-recovery (recovery-kinds.ts).
import { parseQuantity, type Quantity } from '../../domain/quantity.ts';
import { change } from '../../domain/spelling.ts';
import type { GitHistoryPort } from '../../engine/ports.ts';
import type { PassReport, PassTarget, StatefulSetReport, TemplateReport } from '../../engine/run-pass.ts';
import { editableValueIn } from '../edits/editable-value.ts';
import { templateKey, type ProposalIdentity, type TemplateRef } from '../lifecycle/identity.ts';
import type { Proposing } from '../proposal.ts';
import { chooseRecoverySize, type RecoveryDecision } from './choose-recovery-size.ts';
import { sizeRecoveryBody } from './recovery-texts.ts';

/** What a recovery reads: the repository at the pass's commit and before it, the target, and the pass's report. */
export interface RecoveryContext {
  repository: GitHistoryPort;
  branch: string;
  target: PassTarget;
  report: PassReport;
}

/** A terminal expansion failure (a refused class modification has its own recovery: class-recovery.ts). */
export function hasTerminalFailure(template: TemplateReport): boolean {
  return template.action !== 'blocked' && template.pvcs.some((p) => p.state === 'failed' && p.terminal && p.failedOn !== 'class');
}

/** The size recovery of `template`, and the decision behind it (for the pass's report), when one was taken. */
export async function proposeSizeRecovery(
  context: RecoveryContext, identity: ProposalIdentity, sts: StatefulSetReport, template: TemplateReport,
): Promise<{ proposing: Proposing; decision?: RecoveryDecision }> {
  const { repository, target } = context;
  const path = template.storageLocation.path;
  const headSha = context.report.commitSha;
  const text = await repository.fileAt(headSha, path);
  const desired = text === undefined ? undefined : editableValueIn(text, path, identity, 'storage', target);
  if (text === undefined || !desired) return { proposing: { unproposable: `${path} no longer defines ${templateKey(identity)} at ${headSha.slice(0, 7)}` } };

  const failed = desired.value;
  const decision = chooseRecoverySize({
    failedSize: parseQuantity(failed),
    pvcs: template.pvcs.map((p) => ({ name: p.name, capacity: p.capacity ? parseQuantity(p.capacity) : undefined, terminal: p.terminal && p.failedOn !== 'class' })),
    driverMessages: [...template.pvcs.flatMap((p) => (p.message ? [p.message] : [])), ...template.failureEvents.map((e) => e.message)],
    previousGitSize: await previousGitSize(repository, context.branch, path, identity, target),
  });
  if (decision.kind !== 'propose') return { proposing: { unproposable: decision.kind === 'impossible' ? decision.reason : 'no terminal failure' }, decision };
  const subject = `Recover ${sts.namespace}/${sts.name} ${template.templateName}: ${change(failed, decision.size, 'github')}`;
  return {
    decision,
    proposing: {
      proposal: {
        identity, values: { from: failed, to: decision.size },
        edit: { path, line: desired.line, field: desired.field, from: failed, to: decision.size, before: text, after: desired.replace(text, decision.size) },
        title: `${subject} (expansion failed)`,
        commitMessage: `${subject}\n\nThe expansion to ${failed} failed terminally; ${decision.size} is a size Kubernetes accepts (KEP-1790).`,
        body: sizeRecoveryBody({ sts, template, failed, decision, prices: target.prices }),
      },
    },
  };
}

/** The template's size before the commit that introduced the current one. */
async function previousGitSize(repository: GitHistoryPort, branch: string, path: string, ref: TemplateRef, target: PassTarget): Promise<Quantity | undefined> {
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
