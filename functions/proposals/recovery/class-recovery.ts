// Recovery from a refused class modification (KEP-3751): when the driver answers `modifyVolumeStatus: Infeasible`,
// the claim may be set back to the class its volume has, so the recovery pull request proposes that class in Git,
// with the same lifecycle as a failed expansion's (manage-recovery-pull-requests.ts): in the manifest, or in the values
// file a class mapping reads it from (only that value's bytes change). The choice is pure.
import type { GitHistoryPort, ReviewHost } from '../../engine/ports.ts';
import type { PassReport, PassTarget, StatefulSetReport, TemplateReport } from '../../engine/run-pass.ts';
import { templateKey, type ProposalIdentity } from '../lifecycle/identity.ts';
import { editableValueIn, oneLineDiff } from '../edits/editable-value.ts';
import { publishRecovery, type RecoveryOutcome } from './recovery-pull-request.ts';
import { classRecoveryBody } from './recovery-texts.ts';
import { change } from '../../domain/spelling.ts';

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

/** Where a template's class is resolved: the change in Git (positive evidence only), or the modification completed. */
export function classResolution(template: TemplateReport, failed: string): string | undefined {
  if (template.desiredClass !== failed) return `the class changed in Git (now ${template.desiredClass ?? 'none'}, was ${failed})`;
  if (template.finished) return `the modification to ${failed} completed`;
  return undefined;
}

export async function proposeClassRecovery(args: {
  host: ReviewHost; repository: GitHistoryPort; identity: ProposalIdentity; sts: StatefulSetReport; template: TemplateReport;
  input: { branch: string; target: PassTarget; report: PassReport };
}): Promise<RecoveryOutcome> {
  const { host, repository, identity, sts, template, input } = args;
  const key = templateKey(identity);
  const path = (template.classLocation ?? template.storageLocation).path;
  const headSha = input.report.commitSha;
  const text = await repository.fileAt(headSha, path);
  const desired = text === undefined ? undefined : editableValueIn(text, path, identity, 'volumeAttributesClassName', input.target);
  if (text === undefined || !desired) {
    return { key, kind: identity.kind, action: 'impossible', decision: undefined, pullRequestUrl: undefined, reason: `${path} no longer names a volumeAttributesClassName for ${key} at ${headSha.slice(0, 7)}` };
  }
  const failed = desired.value;
  const decision = chooseRecoveryClass(failed, template.pvcs);
  if (decision.kind !== 'propose') return { key, kind: identity.kind, action: 'impossible', decision: undefined, pullRequestUrl: undefined, reason: decision.reason };
  const updated = desired.replace(text, decision.className);
  const title = `Recover ${sts.namespace}/${sts.name} ${template.templateName}: VolumeAttributesClass ${change(failed, decision.className, 'github')} (modification infeasible)`;
  const published = await publishRecovery({
    host, target: input.target.name, identity, values: { from: failed, to: decision.className }, base: input.branch, headSha, path,
    proposed: decision.className, title, body: classRecoveryBody({ sts, template, failed, decision }),
    diff: oneLineDiff(path, desired.line, text, updated), updated,
    message: `Recover ${sts.namespace}/${sts.name} ${template.templateName}: VolumeAttributesClass ${change(failed, decision.className, 'github')}\n\n`
      + `The driver refused to modify the volumes to ${failed} (Infeasible); ${decision.className} is the class they have (KEP-3751).`,
  });
  return { ...published, decision: undefined };
}
