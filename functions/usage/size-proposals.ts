// The pass's usage step (engine/pass-context.ts `proposeSizes`): from the pass's final plan, which live sizes Git
// should take back (write-back), and, where the target configures usage, one read of its volumes (a fixed number of
// queries, whatever their number) joined to the templates, and the growth each template needs. Read-only. A read that
// fails is a report line and the reason growth is skipped this pass; nothing else the pass does depends on it.
import type { GuardrailsConfig, PriceConfig } from '../domain/config.ts';
import type { GrowthPolicy, UsageConfig } from '../domain/usage-config.ts';
import type { GrowthDecision, TemplateUsage, UsageReport } from '../domain/volume-usage.ts';
import type { PlannedPass, SizeProposals, SizeProposalStep } from '../engine/pass-context.ts';
import type { StatefulSetPlan, TemplatePlan } from '../engine/plan/plan.ts';
import { count } from '../domain/spelling.ts';
import { decideGrowth } from './growth-decision.ts';
import type { PrometheusEndpoint } from './prometheus-api.ts';
import { inodeThreshold } from './inode-threshold.ts';
import { readVolumeUsage, type UsageReading } from './read-volume-usage.ts';
import { setPolicy, type SetPolicy } from './set-policy.ts';
import { templateUsageOf } from './template-usage.ts';
import { volumesNearFull } from './near-full.ts';
import { decideWriteBack } from './write-back.ts';

/** The longest a pass waits for Prometheus; less when the invocation has less left. */
export const maxUsageReadMs = 10_000;

export interface SizeProposalSettings {
  usage?: UsageConfig;
  growth?: GrowthPolicy;
  guardrails?: GuardrailsConfig;
  prices?: PriceConfig;
}

export interface UsageSource {
  endpoint: PrometheusEndpoint;
  /** How long the read may take: the pass's deadline (app/deadline.ts), at most maxUsageReadMs. */
  timeoutMs: () => number;
}

/** The templates usage is read for: those of sets the cluster has, in allowed namespaces. */
function templatesInPlay(plans: readonly StatefulSetPlan[]): Array<{ sts: StatefulSetPlan; template: TemplatePlan }> {
  return plans.filter((sts) => sts.outcome === 'planned' && sts.live)
    .flatMap((sts) => sts.templates.filter((t) => t.live).map((template) => ({ sts, template })));
}

export function sizeProposalStep(settings: SizeProposalSettings, source: UsageSource | undefined): SizeProposalStep {
  return (namespaces, at, sets) => {
    const wanted = [...namespaces].sort();
    // The read starts now; nothing awaits it until the plan is made. It never rejects (every failure is typed).
    const reading = settings.usage && source && wanted.length > 0
      ? readVolumeUsage(source.endpoint, wanted, at, Math.min(maxUsageReadMs, source.timeoutMs()), inodeThreshold(settings.growth, sets)) : undefined;
    return async (planned) => {
      const inPlay = templatesInPlay(planned.plans);
      const writeBack = inPlay.flatMap(({ sts, template }) => decideWriteBack(sts, template) ?? []);
      const proposals: SizeProposals = writeBack.length > 0 ? { writeBack } : {};
      if (!settings.usage || !source) return proposals;
      const base = { source: settings.usage.prometheus.url, at: at.toISOString() };
      if (!reading) return { ...proposals, usage: { ...base, queries: 0, outcome: 'read', templates: [] } };
      const { usage, growth } = usageAndGrowth(settings, base, await reading, wanted, planned, inPlay);
      return { ...proposals, usage, ...(growth.length > 0 ? { growth } : {}) };
    };
  };
}

function usageAndGrowth(
  settings: SizeProposalSettings, base: Pick<UsageReport, 'source' | 'at'>, reading: UsageReading, namespaces: readonly string[], planned: PlannedPass,
  inPlay: ReadonlyArray<{ sts: StatefulSetPlan; template: TemplatePlan }>,
): { usage: UsageReport; growth: GrowthDecision[] } {
  if (!reading.ok) return { usage: { ...base, queries: reading.queries, outcome: 'failed', failure: reading.failure, templates: [] }, growth: [] };
  const templates = inPlay.map(({ sts, template }) => templateUsageOf(sts, template, reading.claims));
  const warnings = reading.warnings.length > 0 ? { warnings: reading.warnings } : {};
  const none = noSeries(reading, templates, namespaces);
  if (none) return { usage: { ...base, queries: reading.queries, outcome: 'failed', failure: none, ...warnings, templates }, growth: [] };
  const usage: UsageReport = { ...base, queries: reading.queries, outcome: 'read', ...warnings, templates };
  const target = settings.growth;
  if (!target) return { usage, growth: [] };
  // A set's policy is read once for all its templates; the sets without the tool's annotations (most) share the target's.
  const targetPolicy = setPolicy(target);
  const policies = new Map<StatefulSetPlan, SetPolicy>();
  const policyOf = (sts: StatefulSetPlan): SetPolicy => {
    const annotations = sts.desired.toolAnnotations ?? [];
    if (annotations.length === 0) return targetPolicy;
    const found = policies.get(sts) ?? setPolicy(target, annotations);
    policies.set(sts, found);
    return found;
  };
  const growth = inPlay.map(({ sts, template }, index) => decideGrowth(sts, template, templates[index] ?? templateUsageOf(sts, template, reading.claims),
    policyOf(sts), { guardrails: settings.guardrails, prices: settings.prices, driverMaxima: planned.driverMaxima }));
  // A set with growth off (or a policy in error) is still counted near full, against the target's threshold.
  const thresholdOf = (sts: StatefulSetPlan): number => { const policy = policyOf(sts); return policy.kind === 'on' ? policy.usedPercent.value : target.usedPercent; };
  const nearFull = volumesNearFull(inPlay.flatMap(({ sts }, index) => { const read = templates[index]; return read ? [{ usage: read, usedPercent: thresholdOf(sts) }] : []; }));
  return { usage: { ...usage, nearFull }, growth };
}
/** Prometheus answered, with no series for any claim in play: as good as no usage (a relabelled scrape, the wrong Prometheus). */
function noSeries(reading: Extract<UsageReading, { ok: true }>, templates: readonly TemplateUsage[], namespaces: readonly string[]): UsageReport['failure'] {
  const claims = templates.reduce((sum, t) => sum + t.replicas.length + t.unread.length, 0);
  if (claims === 0 || templates.some((t) => t.replicas.length > 0)) return undefined;
  return {
    kind: 'no-series',
    message: `Prometheus has no kubelet_volume_stats series for any of the ${count(claims, 'claim')} in ${namespaces.join(', ')}`
      + `${reading.claims.size > 0 ? ` (it has series for ${count(reading.claims.size, 'other claim')} there)` : ''}; \`npx sts-volume-gitops check\` says what it finds instead`,
  };
}
