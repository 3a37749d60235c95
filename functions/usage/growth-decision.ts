// The growth decision for one template (pure): from its replicas' usage, the set's policy and the guardrails, either
// "propose growth to X, because replica r is p% full / fills in d days" or "no growth, because ...". The template size
// is what the fullest replica needs (so new replicas get it too); the step is cut by `max` and by each guardrail as far
// as it allows, and says so; at a limit, no proposal and the limit's own words.
import type { GuardrailsConfig, PriceConfig } from '../domain/config.ts';
import { formatBytesLike, parseQuantity, quantityFromBytes, type Quantity } from '../domain/quantity.ts';
import { daysSpelled, gib, monthly, percent, showSize } from '../domain/spelling.ts';
import { costOfGrowth, growthOfReplicas, type VolumeCost } from '../domain/volume-cost.ts';
import type { GrowthCut, GrowthDecision, GrowthTrigger, ReplicaUsage, TemplateRef, TemplateUsage } from '../domain/volume-usage.ts';
import { defaultMaxGrowthFactor, guardrailReasons, limitOf, type GuardedChange, type Limit } from '../engine/plan/guardrails.ts';
import { currentSize } from '../engine/plan/plan-guards.ts';
import { windowReasons, windowUntil } from '../engine/plan/modification-window-words.ts';
import type { RememberedMaximum } from '../engine/volumes/remembered-maximum.ts';
import type { StatefulSetPlan, TemplatePlan } from '../engine/plan/plan.ts';
import { factorNeeded, gibibyte, roundDownToGi, roundUpToGi, sizeForFactor, stepBytes, usedPercentAt } from './growth-size.ts';
import type { SetPolicy } from './set-policy.ts';
import { sizeSourceOf, templateRefOf } from './template-usage.ts';

export interface GrowthContext {
  guardrails: GuardrailsConfig | undefined;
  prices: PriceConfig | undefined;
  /** Per driver, the maximum it stated (engine/plan/plan-driver-maximum.ts knownMaxima): growth never proposes above it. */
  driverMaxima?: ReadonlyMap<string, RememberedMaximum> | undefined;
}

const days = daysSpelled;

/** What makes a replica a reason to grow (its worst), or undefined when it is none. */
function triggerOf(replica: ReplicaUsage, policy: Extract<SetPolicy, { kind: 'on' }>): GrowthTrigger | undefined {
  const threshold = policy.usedPercent.value;
  if (replica.usedPercent >= threshold) return { claim: replica.claim, ordinal: replica.ordinal, cause: 'bytes', value: replica.usedPercent };
  if (replica.inodesPercent !== undefined && replica.inodesPercent >= threshold) return { claim: replica.claim, ordinal: replica.ordinal, cause: 'inodes', value: replica.inodesPercent };
  const within = policy.fullWithinSeconds?.value;
  if (within !== undefined && replica.daysToFull !== undefined && replica.daysToFull <= within / 86_400) {
    return { claim: replica.claim, ordinal: replica.ordinal, cause: 'fills-soon', value: replica.daysToFull };
  }
  return undefined;
}

function becauseWords(trigger: GrowthTrigger, replica: ReplicaUsage | undefined, policy: Extract<SetPolicy, { kind: 'on' }>): string {
  if (trigger.cause === 'bytes') return `${trigger.claim} is ${percent(trigger.value)} full (${gib(replica?.usedBytes ?? 0)} of ${gib(replica?.capacityBytes ?? 0)}; growth from ${percent(policy.usedPercent.value)})`;
  if (trigger.cause === 'inodes') return `${trigger.claim} has used ${percent(trigger.value)} of its inodes (growth from ${percent(policy.usedPercent.value)})`;
  return `${trigger.claim} fills in ${days(trigger.value)} at the last day's pace (${gib(replica?.bytesPerDay ?? 0)} a day; growth when it fills within ${days((policy.fullWithinSeconds?.value ?? 0) / 86_400)})`;
}

/** The replica with the highest used percent, the first of equals (as a stable sort, highest first, would put it). */
function fullestReplica(replicas: readonly ReplicaUsage[]): ReplicaUsage | undefined {
  let fullest = replicas[0];
  for (const replica of replicas) if (fullest && replica.usedPercent > fullest.usedPercent) fullest = replica;
  return fullest;
}

/** `growth from 80% or when it fills within 7 days`: the same words for every template of a policy, so spelled once. */
const thresholdWordsOf = new WeakMap<SetPolicy, string>();
function thresholdWords(policy: Extract<SetPolicy, { kind: 'on' }>): string {
  const known = thresholdWordsOf.get(policy);
  if (known !== undefined) return known;
  const words = `growth from ${percent(policy.usedPercent.value)}${policy.fullWithinSeconds ? ` or when it fills within ${days(policy.fullWithinSeconds.value / 86_400)}` : ''}`;
  thresholdWordsOf.set(policy, words);
  return words;
}

function none(ref: TemplateRef, code: Extract<GrowthDecision, { action: 'none' }>['code'], why: string): GrowthDecision {
  return { ...ref, action: 'none', code, sentence: `no growth: ${why}` };
}

/** Whether the template is settled: Git's size is the live one and every replica's volume has it. */
function unsettled(template: TemplatePlan): string | undefined {
  if (template.action === 'resize') return `a change to ${template.to.text} is under way; growth waits for it to finish`;
  const growing = template.pvcs.find((p) => p.request && p.capacity && p.capacity.bytes < p.request.bytes);
  return growing ? `${growing.name} is still expanding to ${growing.request?.text ?? '?'}; growth waits for it to finish` : undefined;
}

/** A template with volumes in their driver's modification window: a growth merged now would only wait (engine/plan/modification-windows.ts). */
function drivenWindow(template: TemplatePlan): string | undefined {
  const windows = template.modificationWindows ?? [];
  if (windows.length === 0) return undefined;
  return `${windowReasons(windows)}; growth waits for the driver's window, ${windowUntil(windows)}`;
}

export function decideGrowth(sts: StatefulSetPlan, template: TemplatePlan, usage: TemplateUsage, policy: SetPolicy, context: GrowthContext): GrowthDecision {
  const ref = templateRefOf(sts, template);
  if (policy.kind === 'off') return none(ref, 'growth-off', `growth is off for this StatefulSet (${policy.setBy})`);
  if (policy.kind === 'invalid') return none(ref, 'policy-invalid', policy.problems.join('; '));
  if (!sts.live || !template.live) return none(ref, 'not-in-cluster', 'the template is not in the cluster');
  if (template.action === 'blocked') return none(ref, 'blocked', `its change in Git is blocked (${template.reasons[0]?.message ?? 'see the plan'})`);
  const busy = unsettled(template);
  if (busy) return none(ref, 'change-under-way', busy);
  const window = drivenWindow(template);
  if (window) return none(ref, 'driver-window', window);
  if (usage.replicas.length === 0) {
    return none(ref, 'no-usage', `no replica's volume has usage series (${usage.unread.join(', ') || 'no replicas'}): a kubelet reports only the volumes of running pods`);
  }
  // Most templates are below every threshold: they are told so without the triggers' objects or a sorted copy.
  if (!usage.replicas.some((replica) => triggerOf(replica, policy) !== undefined)) {
    const fullest = fullestReplica(usage.replicas);
    const pace = fullest?.daysToFull !== undefined ? `, fills in ${days(fullest.daysToFull)}` : '';
    return none(ref, 'below-threshold', `the fullest replica, ${fullest?.claim ?? '?'}, is ${percent(fullest?.usedPercent ?? 0)} full${pace} (${thresholdWords(policy)})`);
  }
  const triggers = usage.replicas.map((replica) => ({ replica, trigger: triggerOf(replica, policy) }));
  const current = template.to.bytes;
  const step = stepBytes(current, policy.step.value);
  const need = { usedPercent: policy.usedPercent.value, fullWithinSeconds: policy.fullWithinSeconds?.value };
  const triggered = triggers.flatMap(({ replica, trigger }) => (trigger ? [{ replica, trigger, size: sizeForFactor(current, step, factorNeeded(replica, need)) }] : []));
  // The fullest replica is the one that needs the most; a tie goes to the fuller one.
  const [fullest] = triggered.sort((a, b) => (b.size === a.size ? b.replica.usedPercent - a.replica.usedPercent : b.size > a.size ? 1 : -1));
  if (!fullest?.trigger) return none(ref, 'below-threshold', 'no replica is a reason to grow');
  const max = parseQuantity(policy.max.value);
  if (max.bytes <= current) return none(ref, 'at-max', `${becauseWords(fullest.trigger, fullest.replica, policy)}, but ${template.to.text} is already at ${max.text}, the largest growth proposes (${policy.max.setBy})`);
  const cuts: GrowthCut[] = [];
  let to = roundUpToGi(fullest.size);
  if (to > max.bytes) {
    cuts.push({ limit: 'max', setBy: policy.max.setBy, wanted: show(to, template.to), allowed: max.text });
    to = max.bytes;
  }
  const stated = template.driver === undefined ? undefined : context.driverMaxima?.get(template.driver);
  if (stated && to > BigInt(stated.bytes)) {
    // Above it the expansion would be refused for good, and a refused request cannot be taken back (KEP-1790).
    const allowed = roundDownToGi(BigInt(stated.bytes));
    const said = `${stated.driver} said at ${stated.saidAt}, "${stated.words}"`;
    if (allowed <= current) return none(ref, 'at-driver-maximum', `${becauseWords(fullest.trigger, fullest.replica, policy)}, but ${template.to.text} is at the driver's maximum, ${show(BigInt(stated.bytes), template.to)} (${said}): no larger size can succeed on this driver`);
    cuts.push({ limit: 'driverMaximum', setBy: `the driver's maximum (${said})`, wanted: show(to, template.to), allowed: show(allowed, template.to) });
    to = allowed;
  }
  const guarded = cutByGuardrails(sts, template, to, context);
  if ('blocked' in guarded) return none(ref, guarded.code, `${becauseWords(fullest.trigger, fullest.replica, policy)}, but ${guarded.blocked}`);
  cuts.push(...guarded.cuts);
  to = guarded.to;
  const toText = show(to, template.to);
  const cost = guarded.cost;
  const cutWords = cuts.map((c) => `; cut from ${c.wanted} to ${c.allowed} by ${c.setBy}`).join('');
  return {
    ...ref, action: 'grow', from: template.to.text, to: toText, because: fullest.trigger, cuts,
    triggers: triggers.flatMap(({ trigger }) => (trigger ? [trigger] : [])),
    ...(cost ? { monthlyIncrease: cost.monthlyIncrease === undefined ? { unpriced: cost.storageClassName ?? '(no class)' } : { amount: cost.monthlyIncrease, currency: cost.currency } } : {}),
    after: usage.replicas.map((r) => ({ claim: r.claim, usedPercent: usedPercentAt(r, current, to) })),
    sentence: `propose ${showSize(toText)} (from ${showSize(template.to.text)}), because ${becauseWords(fullest.trigger, fullest.replica, policy)}${cutWords}`
      + (cost?.monthlyIncrease !== undefined ? `; ${monthly(cost.monthlyIncrease, cost.currency)}` : ''),
  };
}

/** A size as Git would write it: in the template's unit when exact (whole Gi here, so `15Gi`, `2Ti`), else canonical. */
function show(bytes: bigint, like: Quantity): string {
  return formatBytesLike(bytes, like.format === 'BinarySI' ? like : quantityFromBytes(gibibyte));
}

type Guarded = { to: bigint; cuts: GrowthCut[]; cost: VolumeCost | undefined } | { blocked: string; code: 'at-guardrail' | 'guardrail-unknown' };

/** The size cut by each guardrail in turn as far as it allows (maxSize, then the growth factor, then the monthly cost). */
function cutByGuardrails(sts: StatefulSetPlan, template: TemplatePlan, wanted: bigint, context: GrowthContext): Guarded {
  const from = currentSize(template);
  const sizeSource = sizeSourceOf(sts, template);
  const replicas = sts.live?.replicas ?? 0;
  const costAt = (bytes: bigint): VolumeCost | undefined => costOfGrowth(growthOfReplicas(bytes, template.from?.bytes, replicas, template.pvcs), template.storageClassName, context.prices);
  const changeTo = (bytes: bigint): GuardedChange => ({ from, to: quantityFromBytes(bytes), cost: costAt(bytes), sizeSource });
  const limitWords = (limit: Limit<unknown>, key: string): string => `guardrails.${key} ${limit.setBy === 'default' ? '(the default)' : `on the ${limit.setBy === 'size source' ? "template's size source" : 'target'}`}`;
  const cuts: GrowthCut[] = [];
  let to = wanted;
  const current = template.to.bytes;
  for (let round = 0; round < 3; round++) {
    const reasons = guardrailReasons(changeTo(to), context.guardrails);
    const reason = reasons[0];
    if (!reason) return { to, cuts, cost: costAt(to) };
    if (reason.code === 'growth-unknown' || reason.code === 'cost-unknown') return { blocked: reason.message, code: 'guardrail-unknown' };
    let allowed: bigint;
    let setBy: string;
    let limit: GrowthCut['limit'];
    if (reason.code === 'size-limit') {
      const maxSize = limitOf('maxSize', changeTo(to), context.guardrails);
      allowed = roundDownToGi(parseQuantity(maxSize?.value ?? 0).bytes);
      [limit, setBy] = ['maxSize', maxSize ? limitWords(maxSize, 'maxSize') : 'guardrails.maxSize'];
    } else if (reason.code === 'growth-limit') {
      const factor = limitOf('maxGrowthFactor', changeTo(to), context.guardrails) ?? { value: defaultMaxGrowthFactor, setBy: 'default' as const };
      allowed = roundDownToGi(((from?.bytes ?? 0n) * BigInt(Math.round(factor.value * 1_000_000))) / 1_000_000n);
      [limit, setBy] = ['maxGrowthFactor', limitWords(factor, 'maxGrowthFactor')];
    } else {
      const maxCost = limitOf('maxMonthlyIncrease', changeTo(to), context.guardrails);
      allowed = largestWithin(current, to, (bytes) => (costAt(bytes)?.monthlyIncrease ?? Infinity) <= (maxCost?.value ?? 0));
      [limit, setBy] = ['maxMonthlyIncrease', maxCost ? limitWords(maxCost, 'maxMonthlyIncrease') : 'guardrails.maxMonthlyIncrease'];
    }
    if (allowed <= current) return { blocked: `${template.to.text} is at the limit: ${reason.message}`, code: 'at-guardrail' };
    if (allowed >= to) return { blocked: reason.message, code: 'at-guardrail' };
    cuts.push({ limit, setBy, wanted: show(to, template.to), allowed: show(allowed, template.to) });
    to = allowed;
  }
  return { to, cuts, cost: costAt(to) };
}

/** The largest whole-Gi size in (current, to] that `fits`, or `current` when none does (costs grow with the size). */
function largestWithin(current: bigint, to: bigint, fits: (bytes: bigint) => boolean): bigint {
  let low = roundUpToGi(current + 1n);
  let high = roundDownToGi(to);
  let best = current;
  while (low <= high) {
    const middle = roundDownToGi((low + high) / 2n);
    const probe = middle < low ? low : middle;
    if (fits(probe)) {
      best = probe;
      low = probe + gibibyte;
    } else high = probe - gibibyte;
  }
  return best;
}
