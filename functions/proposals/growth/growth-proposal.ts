// One template's growth proposal: the pass's growth decision (usage/growth-decision.ts) made into the one edit where
// the size lives at the pass's commit (the manifest, or the Helm values file or Kustomize patch a size source maps:
// only that value's bytes change), with its title, commit message and body (growth-texts.ts), and what it rests on.
import { sameSize } from '../../domain/quantity.ts';
import type { TemplateUsage } from '../../domain/volume-usage.ts';
import type { GitHistoryPort } from '../../engine/ports.ts';
import type { PassReport, PassTarget } from '../../engine/run-pass.ts';
import { editableValueIn } from '../edits/editable-value.ts';
import { templateKey, type ProposalIdentity } from '../lifecycle/identity.ts';
import type { Proposing } from '../proposal.ts';
import { growthBody, growthCommitMessage, growthTitle, type Growth } from './growth-texts.ts';

export interface GrowthContext {
  repository: GitHistoryPort;
  target: PassTarget;
  report: PassReport;
}

/** The file a decision's size lives in: the size source's, else the manifest's. */
export function growthPath(decision: Growth): string {
  return decision.sizeSource?.file ?? decision.storageLocation.path;
}

export async function proposeGrowth(context: GrowthContext, identity: ProposalIdentity, decision: Growth): Promise<Proposing> {
  const { report, target } = context;
  const path = growthPath(decision);
  const text = await context.repository.fileAt(report.commitSha, path);
  const value = text === undefined ? undefined : editableValueIn(text, path, identity, 'storage', target);
  if (text === undefined || !value) return { unproposable: `${path} no longer defines ${templateKey(identity)} at ${report.commitSha.slice(0, 7)}` };
  if (!sameSize(value.value, decision.from)) return { unproposable: `${path}:${value.line} now says ${value.value}, not the ${decision.from} growth was decided from` };
  const usage: TemplateUsage | undefined = report.usage?.templates.find((t) => t.namespace === identity.namespace && t.statefulSet === identity.statefulSet && t.template === identity.template);
  const template = report.statefulSets.find((s) => s.namespace === identity.namespace && s.name === identity.statefulSet)?.templates.find((t) => t.templateName === identity.template);
  return {
    proposal: {
      identity, values: { from: value.value, to: decision.to },
      edit: { path, line: value.line, field: value.field, from: value.value, to: decision.to, before: text, after: value.replace(text, decision.to) },
      title: growthTitle(decision),
      commitMessage: growthCommitMessage(decision),
      body: growthBody({ decision, usage, template, prices: target.prices }),
      basis: growthBasis(decision),
    },
  };
}

/**
 * What a growth rests on: each replica that is a reason to grow and why (`data-pg-0 bytes, data-pg-1 fills-soon`). A
 * replica crossing the threshold, or its cause changing, rewrites the open pull request's evidence at once; its
 * numbers drifting, at most every `evidenceRefreshHours` (lifecycle/evidence-refresh.ts).
 */
export function growthBasis(decision: Growth): string {
  return decision.triggers.map((t) => `${t.claim} ${t.cause}`).join(', ');
}
