// Recovery from a refused class modification (KEP-3751): when the driver answers `modifyVolumeStatus: Infeasible`,
// the claim may be set back to the class its volume has, so the recovery proposes that class in Git, where the class
// lives (the manifest, or the values file a class mapping reads it from: only that value's bytes change), as a
// proposal of kind class-recovery (recovery-kinds.ts). The choice is pure.
import { change } from '../../domain/spelling.ts';
import type { StatefulSetReport, TemplateReport } from '../../engine/run-pass.ts';
import { editableValueIn } from '../edits/editable-value.ts';
import { templateKey, type ProposalIdentity } from '../lifecycle/identity.ts';
import type { Proposing } from '../proposal.ts';
import type { RecoveryContext } from './size-recovery.ts';
import { classRecoveryBody } from './recovery-texts.ts';

export function hasClassFailure(template: TemplateReport): boolean {
  return template.action !== 'blocked' && template.pvcs.some((p) => p.state === 'failed' && p.terminal && p.failedOn === 'class');
}

export type ClassRecoveryDecision =
  | { kind: 'propose'; className: string; explanation: string }
  | { kind: 'impossible'; reason: string };

/** The class to go back to: the one the refused volumes have, when they all have the same one. */
export function chooseRecoveryClass(failedClass: string, pvcs: TemplateReport['pvcs']): ClassRecoveryDecision {
  const refused = pvcs.filter((p) => p.state === 'failed' && p.failedOn === 'class');
  const current = [...new Set(refused.map((p) => p.volumeAttributesClass?.current ?? ''))];
  if (refused.length === 0) return { kind: 'impossible', reason: 'no modification was refused' };
  if (current.length !== 1 || current[0] === '' || current[0] === undefined) {
    return {
      kind: 'impossible',
      reason: `the refused volumes are in ${current.map((c) => c || 'no class').join(', ')}: no one class takes them all back `
        + '(Kubernetes refuses to empty a claim\'s class once its volume has one)',
    };
  }
  const back = current[0];
  return {
    kind: 'propose', className: back,
    explanation: `${refused.map((p) => p.name).join(', ')} ${refused.length === 1 ? 'is' : 'are'} still in ${back}; `
      + `setting the claims back to the class their volumes have cancels the refused modification to ${failedClass} (KEP-3751)`,
  };
}

/** The class recovery of `template`: the class its refused volumes have, in place of the one Git asks for. */
export async function proposeClassRecovery(context: RecoveryContext, identity: ProposalIdentity, sts: StatefulSetReport, template: TemplateReport): Promise<Proposing> {
  const path = (template.classLocation ?? template.storageLocation).path;
  const headSha = context.report.commitSha;
  const text = await context.repository.fileAt(headSha, path);
  const desired = text === undefined ? undefined : editableValueIn(text, path, identity, 'volumeAttributesClassName', context.target);
  if (text === undefined || !desired) return { unproposable: `${path} no longer names a volumeAttributesClassName for ${templateKey(identity)} at ${headSha.slice(0, 7)}` };
  const failed = desired.value;
  const decision = chooseRecoveryClass(failed, template.pvcs);
  if (decision.kind !== 'propose') return { unproposable: decision.reason };
  const subject = `Recover ${sts.namespace}/${sts.name} ${template.templateName}: VolumeAttributesClass ${change(failed, decision.className, 'github')}`;
  return {
    proposal: {
      identity, values: { from: failed, to: decision.className },
      edit: { path, line: desired.line, field: desired.field, from: failed, to: decision.className, before: text, after: desired.replace(text, decision.className) },
      title: `${subject} (modification infeasible)`,
      commitMessage: `${subject}\n\nThe driver refused to modify the volumes to ${failed} (Infeasible); ${decision.className} is the class they have (KEP-3751).`,
      body: classRecoveryBody({ sts, template, failed, decision }),
    },
  };
}
