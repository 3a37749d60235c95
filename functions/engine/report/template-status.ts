// The KEP-0661 feedback: per volumeClaimTemplate, readyReplicas (PVCs whose capacity reached the template size) and
// finishedReconciliationGeneration, kept as a JSON annotation on the live StatefulSet since we cannot add status fields.
import type { LiveStatefulSet } from '../../domain/live-state.ts';
import { compareQuantities } from '../../domain/quantity.ts';
import type { TemplatePlan } from '../plan/plan-types.ts';
import { hasReachedSize, type PvcProgress } from '../volumes/pvc-progress.ts';
import { rememberMaximum, type RememberedMaximum } from '../volumes/remembered-maximum.ts';
import { stalledWords } from '../volumes/node-expansion.ts';

export const statusAnnotation = 'sts-volume-gitops.io/volume-claim-templates';

/** What a template's change alters: its volumes' size, their VolumeAttributesClass (KEP-3751), or both. */
export type TemplateChange = 'size' | 'class' | 'size-and-class';

export interface TemplateStatus {
  templateName: string;
  desiredSize: string;
  /** The volumeAttributesClassName Git asks for (KEP-3751), when it names one. */
  desiredClass?: string;
  /** The branch head at which this size was first seen: kept while the size stays, so unrelated commits write nothing. */
  commitSha: string;
  /**
   * When a pass first pursued this size and class (ISO time), kept while they stay: a failure is never dated before it
   * (failure-evidence.ts). Absent in annotations older versions wrote, and for a change a read-only pass sees.
   */
  startedAt?: string;
  replicas: number;
  readyReplicas: number;
  finishedReconciliationGeneration?: number;
  /** What the change to this size and class alters, as first seen (kept while they stay, like `commitSha`). */
  change?: TemplateChange;
  /** The first failure, block or stall reason, when there is one. */
  lastError?: string;
  /**
   * When this tool patched each replica's volume to a new size or class (ISO, by claim), carried from change to change:
   * a CSI driver's modification limit counts them (modification-windows.ts). One time is written as a string (as
   * annotations older versions wrote hold it), several as a list, oldest first: only those within the driver's window
   * and at most its count of them are kept (run-pass.ts), so the record stays as small as the limit.
   */
  volumesModifiedAt?: Record<string, ModificationTimes>;
  /** The maximum the template's driver stated, remembered after its claims stop saying it (remembered-maximum.ts). */
  driverMaximum?: RememberedMaximum;
  /** A claim failed for good at this size or class (the driver refused it): how a later change ends it is told. */
  failedForGood?: true;
  /**
   * The values of this template that Git replaced before they were reached, oldest first (at most `replacedKept`),
   * kept until the value Git asks now is replaced after being reached: on each one's commit the feedback says how it
   * ended (feedback/report-endings.ts), since nothing else remembers that it is unfinished.
   */
  replaced?: ReplacedChange[];
}

/** One claim's modification times in the annotation: one ISO time, or a list of them. */
export type ModificationTimes = string | string[];

/** The times of one claim's record, whichever form it has; anything else (an annotation edited by hand) is none. */
export function modificationTimes(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
}

/** An earlier value of a template, replaced in Git before it was reached (its status, as last written). */
export interface ReplacedChange {
  desiredSize: string;
  desiredClass?: string;
  /** The branch head at which it was first seen. */
  commitSha: string;
  lastError?: string;
  failedForGood?: true;
}

/** How many replaced values a template keeps: enough for any chain of failures a person answers one by one. */
export const replacedKept = 10;

/** Whether the change alters a size: the live template's, or a volume's not at it (a class change alone does not). */
export function changesSize(plan: Pick<TemplatePlan, 'from' | 'to' | 'pvcs'>): boolean {
  return (plan.from !== undefined && compareQuantities(plan.from, plan.to) !== 0) || plan.pvcs.some((p) => !hasReachedSize(p, plan.to));
}

/** What is changing now: the size (live template or a volume not at it), the class (a claim or volume not in it), or both. */
function changeOf(plan: TemplatePlan): TemplateChange | undefined {
  const size = changesSize(plan);
  const wanted = plan.volumeAttributesClassName;
  const klass = wanted !== undefined && (plan.volumeAttributesClass !== undefined || plan.pvcs.some((p) => p.currentVolumeAttributesClassName !== wanted));
  return size && klass ? 'size-and-class' : size ? 'size' : klass ? 'class' : undefined;
}

/** `now`: the applying pass's clock, to date a change it begins; a read-only pass passes none and dates nothing. */
export function summariseTemplate(
  plan: TemplatePlan, progress: readonly PvcProgress[], live: LiveStatefulSet, commitSha: string,
  previous: readonly TemplateStatus[], now?: Date,
): TemplateStatus {
  const readyReplicas = progress.filter((p) => p.state === 'done').length;
  const earlier = previous.find((p) => p.templateName === plan.templateName);
  const sameAsEarlier = earlier?.desiredSize === plan.desired.storageText && earlier.desiredClass === plan.volumeAttributesClassName;
  // Once finished nothing changes any more: what the change was is the one first seen for this size and class.
  const change = sameAsEarlier && earlier.change !== undefined ? earlier.change : changeOf(plan);
  const status: TemplateStatus = {
    templateName: plan.templateName,
    desiredSize: plan.desired.storageText,
    ...(plan.volumeAttributesClassName !== undefined ? { desiredClass: plan.volumeAttributesClassName } : {}),
    ...(change !== undefined ? { change } : {}),
    commitSha: sameAsEarlier && earlier ? earlier.commitSha : commitSha,
    ...startedAtOf(sameAsEarlier ? earlier : undefined, now),
    replicas: live.replicas,
    readyReplicas,
    ...(earlier?.volumesModifiedAt ? { volumesModifiedAt: earlier.volumesModifiedAt } : {}),
  };
  const replaced = replacedSince(earlier, sameAsEarlier);
  if (replaced.length > 0) status.replaced = replaced;
  if (progress.some((p) => p.state === 'failed' && p.terminal)) status.failedForGood = true;

  // A template still to be updated is not finished, though its volumes may already have the size (the claims of an
  // expansion refused at the driver's maximum, back at the size they have): it finishes on the pass after its update.
  if (plan.action !== 'blocked' && readyReplicas === live.replicas && !plan.templateNeedsUpdate) {
    status.finishedReconciliationGeneration = live.generation;
  } else if (earlier?.finishedReconciliationGeneration !== undefined) {
    status.finishedReconciliationGeneration = earlier.finishedReconciliationGeneration;
  }
  const driverMaximum = rememberMaximum(earlier?.driverMaximum, plan.driver, plan.pvcs, now);
  if (driverMaximum) status.driverMaximum = driverMaximum;
  const error = plan.reasons[0]?.message ?? progress.find((p) => p.state === 'failed')?.message ?? stalledWords(progress);
  if (error !== undefined) status.lastError = error;
  return status;
}

/**
 * What a template's earlier values left unfinished: kept while the value stays; on a change, the earlier value is added
 * unless it was reached (its own check said so), and then the list starts again.
 */
function replacedSince(earlier: TemplateStatus | undefined, sameAsEarlier: boolean): ReplacedChange[] {
  if (!earlier) return [];
  // The annotation is ours, but a person may edit it: anything but a list is forgotten.
  const kept = Array.isArray(earlier.replaced) ? earlier.replaced : [];
  if (sameAsEarlier) return kept;
  if (earlier.readyReplicas === earlier.replicas && earlier.lastError === undefined) return [];
  const left: ReplacedChange = {
    desiredSize: earlier.desiredSize, ...(earlier.desiredClass !== undefined ? { desiredClass: earlier.desiredClass } : {}), commitSha: earlier.commitSha,
    ...(earlier.lastError !== undefined ? { lastError: earlier.lastError } : {}), ...(earlier.failedForGood ? { failedForGood: true as const } : {}),
  };
  return [...kept, left].slice(-replacedKept);
}

function startedAtOf(earlier: TemplateStatus | undefined, now: Date | undefined): { startedAt?: string } {
  if (earlier) return earlier.startedAt !== undefined ? { startedAt: earlier.startedAt } : {};
  return now ? { startedAt: now.toISOString() } : {};
}

export function isFinished(status: TemplateStatus, plan: TemplatePlan): boolean {
  return plan.action !== 'blocked' && plan.heldForWriteBack === undefined && status.readyReplicas === status.replicas;
}

export function readStatusAnnotation(live: Pick<LiveStatefulSet, 'annotations'>): TemplateStatus[] {
  const text = live.annotations[statusAnnotation];
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as TemplateStatus[]) : [];
  } catch {
    return []; // someone edited it by hand; it is rewritten below
  }
}

export function renderStatusAnnotation(statuses: readonly TemplateStatus[]): string {
  return JSON.stringify(statuses);
}
