// A write-back proposal (issue 36 item 3): Git set to the live size of a template grown outside it (by hand, by an
// autoscaler that patches PVCs, by a recovery done outside the tool), the largest found (usage/write-back.ts decides
// it), written where the size lives: the manifest, or the Helm values file or Kustomize patch a size source maps, only
// that value's bytes changed.
import { change } from '../../domain/spelling.ts';
import type { WriteBackDecision } from '../../domain/volume-usage.ts';
import type { GitHistoryPort } from '../../engine/ports.ts';
import type { PassReport, TemplateReport } from '../../engine/report/pass-report.ts';
import type { PassTarget } from '../../engine/pass-context.ts';
import { editableValueIn } from '../edits/editable-value.ts';
import { templateKey, type ProposalIdentity } from '../lifecycle/identity.ts';
import type { Proposing } from '../proposal.ts';
import { writeBackBody } from './write-back-texts.ts';

export interface WriteBackContext {
  repository: GitHistoryPort;
  target: PassTarget;
  report: PassReport;
}

export async function proposeWriteBack(
  context: WriteBackContext, identity: ProposalIdentity, decision: WriteBackDecision, template: TemplateReport | undefined,
): Promise<Proposing> {
  const path = decision.storageLocation.path;
  const headSha = context.report.commitSha;
  const text = await context.repository.fileAt(headSha, path);
  const value = text === undefined ? undefined : editableValueIn(text, path, identity, 'storage', context.target);
  if (text === undefined || !value) return { unproposable: `${path} no longer defines ${templateKey(identity)} at ${headSha.slice(0, 7)}` };
  const git = value.value;
  const subject = `Write back ${identity.namespace}/${identity.statefulSet} ${identity.template}: ${change(git, decision.to, 'github')}`;
  const grown = decision.found.map((f) => (f.where === 'template' ? `the live template asks for ${f.size}` : `${f.name} asks for ${f.size}`)).join('; ');
  return {
    proposal: {
      identity, values: { from: git, to: decision.to },
      edit: { path, line: value.line, field: 'storage', from: git, to: decision.to, before: text, after: value.replace(text, decision.to) },
      title: `${subject} (grown outside Git)`,
      commitMessage: `${subject}\n\nThe volumes were grown outside Git (${grown}). Volumes never shrink, so Git takes the largest live size;\nmerged, nothing is written in the cluster.`,
      body: writeBackBody({ decision, git, template, prices: context.target.prices }),
    },
  };
}
