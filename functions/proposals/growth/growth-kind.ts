// Growth as the proposals lifecycle sees it: when an open growth pull request is no longer needed (positive evidence
// only: usage fell below the threshold, growth was turned off for the set, the size in Git changed), and when one a
// person closed may come back (usage rose by a further step: a larger size is needed, or Git's size changed). Pure.
import { reportedQuantity, sameSize } from '../../domain/quantity.ts';
import type { GrowthDecision } from '../../domain/volume-usage.ts';
import type { PassReport } from '../../engine/report/pass-report.ts';
import type { ProposalMark } from '../lifecycle/marker.ts';
import type { ProposalKind } from '../proposal.ts';

/** The decisions that close an open growth: its template no longer needs it, or may not have it. */
const noLongerNeeded: ReadonlySet<Extract<GrowthDecision, { action: 'none' }>['code']> = new Set(['below-threshold', 'growth-off', 'at-max', 'at-guardrail']);

export const growthKind: ProposalKind = {
  name: 'growth',
  resolution: (report, open) => growthResolution(report, open),
  changedSinceDeclined: (declined, now) => declined.from !== now.from || larger(now.to, declined.to),
  reproposedWhen: 'usage rises by a further step (a larger size is needed) or the size in Git changes',
};

function growthResolution(report: PassReport, open: ProposalMark): string | undefined {
  const { identity, values } = open;
  const template = report.statefulSets.find((s) => s.namespace === identity.namespace && s.name === identity.statefulSet)
    ?.templates.find((t) => t.templateName === identity.template);
  // Git asks for another size than the one this grows from: merged elsewhere, or edited by a person.
  if (template && values.from !== undefined && !sameSize(template.desiredSize, values.from)) return `the size in Git changed (now ${template.desiredSize}, was ${values.from})`;
  const decision = report.growth?.find((g) => g.namespace === identity.namespace && g.statefulSet === identity.statefulSet && g.template === identity.template);
  if (decision?.action !== 'none' || !noLongerNeeded.has(decision.code)) return undefined;
  const why = decision.sentence.replace(/^no growth: /, '');
  return decision.code === 'below-threshold' ? `usage fell: ${why}` : why;
}

function larger(now: string | undefined, declined: string | undefined): boolean {
  const [after, before] = [reportedQuantity(now), reportedQuantity(declined)];
  // None, or a marker another version wrote (no quantity): any other value is a change.
  if (after === undefined || before === undefined) return now !== declined;
  return after.bytes > before.bytes;
}
