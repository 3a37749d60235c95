// What a pass reports, per StatefulSet and template (the KEP's readyReplicas / finishedReconciliationGeneration among
// them), and the pure builders that turn a plan and the PVCs' progress into it. Shared by passes and PR validation.
import type { LocatedError } from '../../domain/desired-state.ts';
import type { LivePod, LiveStatefulSet, PvcEvent } from '../../domain/live-state.ts';
import { formatBytesLike, spelledLike } from '../../domain/quantity.ts';
import { capabilitiesOf, describeCapabilities, type ServerVersion } from '../../domain/server-capabilities.ts';
import { committedBytes, totalCost, type CostTotal } from '../../domain/volume-cost.ts';
import type { GrowthDecision, UsageReport, WriteBackDecision } from '../../domain/volume-usage.ts';
import { describeOwner } from '../plan/controller-owner.ts';
import { pvcName, type StatefulSetPlan, type TemplatePlan } from '../plan/plan.ts';
import type { BlockCode } from '../plan/plan-types.ts';
import { datedFromEvents, eventsOfFailedAttempts } from '../volumes/failure-evidence.ts';
import { atMaximumReport, type AtMaximumReport } from '../volumes/at-driver-maximum.ts';
import { withNodeWaits, type NodeWaitPolicy } from '../volumes/node-expansion.ts';
import { describePvc, type ClaimCondition, type PvcProgress } from '../volumes/pvc-progress.ts';
import { windowWords } from '../plan/modification-window-words.ts';
import type { VolumeWindow } from '../plan/modification-windows.ts';
import type { VolumeRollout } from '../volumes/reconcile-volumes.ts';
import type { RecreationBlockCode, TemplateUpdateOutcome } from '../records/recreate-statefulset.ts';
import { isFinished, readStatusAnnotation, summariseTemplate, type TemplateStatus } from './template-status.ts';

export type PassMode = 'apply' | 'plan';

/** `stalled`: a volume has waited for its node longer than the target's `stalledAfter` (engine/volumes/node-expansion.ts). */
export type StatefulSetOutcome =
  | 'converged' | 'in-progress' | 'blocked' | 'failed' | 'stalled' | 'waiting' | 'missing-in-cluster' | 'namespace-not-allowed'
  | 'not-started';

export interface PvcReport {
  name: string;
  ordinal: number;
  state: PvcProgress['state'];
  request: string | undefined;
  capacity: string | undefined;
  message: string | undefined;
  terminal: boolean;
  since: string | undefined;
  /** KEP-3751, when the template names a class: the class asked for, the volume's, a modification's status. */
  volumeAttributesClass?: { requested: string | undefined; current: string | undefined; modifyStatus: string | undefined };
  /** What failed terminally: the expansion or the class modification. */
  failedOn?: 'size' | 'class';
  /** The condition that says why it failed or waits, as the resizer wrote it (conditions outlive Events). */
  condition?: ClaimCondition;
}

export interface TemplateReport extends TemplateStatus {
  action: TemplatePlan['action'];
  from: string | undefined;
  storageClassName: string | undefined;
  storageClassExpandable: boolean | undefined;
  finished: boolean;
  /** Reached the size in this pass (the moment to report success once). */
  justFinished: boolean;
  reasons: string[];
  /** The codes of `reasons`, in their order (present when there are reasons): what the verdict counts by. */
  reasonCodes?: BlockCode[];
  pvcs: PvcReport[];
  storageLocation: { path: string; line: number; column: number };
  /** ResourceQuota headroom for the growth, per quota and resource, in the template's unit. */
  quota: Array<{ quota: string; resource: string; used: string; growth: string; limit: string }>;
  /**
   * Warning Events of the attempts that failed (VolumeResizeFailed, VolumeModifyFailed of each failed PVC's current
   * attempt: engine/volumes/failure-evidence.ts), oldest first; never those of an earlier failure that resolved.
   */
  failureEvents: PvcEvent[];
  /** The class change Git asks for (KEP-3751), when the template or a PVC is not at it yet. */
  volumeAttributesClass?: { from: string | undefined; to: string | undefined };
  /** Where the class is written in Git (for links and a recovery's edit). */
  classLocation?: { path: string; line: number; column: number };
  /** What this API server does that another version would not (KEP-1790 lowering). */
  serverNotes?: string[];
  /** What the change adds a month (with prices configured and a change to make). */
  cost?: CostReport;
  /**
   * The size the replicas' volumes grow from, when a change is planned and it is not `from`: their capacity, or the
   * size an expansion under way will reach (domain/volume-cost.ts). A request lowered from a size the driver refused
   * (KEP-1790) grows the volumes from their capacity: `from` 100Gi, `volumesFrom` 20Gi. `20Gi–30Gi` when they differ.
   */
  volumesFrom?: string;
  /** Only the template changes, raised to the size its volumes already have (`volumesFrom`): nothing grows, no cost. */
  catchesUp?: true;
  /** The live template's size, larger than Git's and held for the write-back that proposes it (write-back-hold.ts). */
  heldForWriteBack?: string;
  /** Volumes within their CSI driver's modification window: the change to them waits until it has passed. */
  modificationWindows?: VolumeWindow[];
  /** Failed for good at the driver's maximum: no size can succeed (engine/volumes/at-driver-maximum.ts). */
  atDriverMaximum?: AtMaximumReport;
}

export interface CostReport {
  storageClassName: string | undefined;
  /** The bytes the change adds across the replicas, in the template's unit (`30Gi`). */
  growth: string;
  currency: string;
  /** undefined: the class has no price, so the cost is unknown. */
  pricePerGiBMonth: number | undefined;
  monthlyIncrease: number | undefined;
}

/** The monthly cost of the resizes a pass applies (or a merge would), per StatefulSet and in total. */
export interface CostSummary extends CostTotal {
  statefulSets: Array<{ namespace: string; name: string } & CostTotal>;
}

export interface StatefulSetReport {
  namespace: string;
  name: string;
  outcome: StatefulSetOutcome;
  podManagementPolicy: string;
  replicas: number | undefined;
  templateUpdate: TemplateUpdateOutcome | undefined;
  templates: TemplateReport[];
  notes: string[];
  /** Why a set is blocked when no template's plan says so (it was blocked while being applied). */
  blockedBy?: StatefulSetBlockCode;
  /** What a `waiting` set waits for, when it is another pass (busy-pass.ts): `another pass (X) holds the target ... until T`. */
  waitingFor?: string;
}

/** The Lease a busy pass found held, as its report says it (busy-pass.ts). */
export interface LeaseHold {
  /** `namespace/name` of the Lease. */
  lease: string;
  holder: string;
  /** acquireTime: when the holder took it (absent from a Lease an older version wrote). */
  since: string | undefined;
  /** renewTime + leaseDurationSeconds: when it lapses unless the holder renews it. */
  until: string;
}

/** A set blocked while it was applied: its template update cannot save its recreation record (records/recreate-statefulset.ts). */
export type StatefulSetBlockCode = RecreationBlockCode;

/** A recreation record a pass would not act on, and why. */
export interface RefusedRecord {
  /** `namespace/name` of the ConfigMap. */
  configMap: string;
  /** The StatefulSet it claims to restore (`namespace/name`), as it says. */
  statefulSet: string;
  reason: string;
}

export interface PassReport {
  target: string;
  mode: PassMode;
  commitSha: string;
  /** The API server's version and what it means here (read once per pass; absent on a busy pass). */
  server?: { version: string; capabilities: string[] };
  outcome: 'ok' | 'busy' | 'incomplete';
  statefulSets: StatefulSetReport[];
  manifestErrors: LocatedError[];
  notes: string[];
  /**
   * Recreation records found and not acted on (no valid MAC, or claims that disagree): see engine/records/refused.ts.
   * The first `maxRefusedRecordsListed`; `refusedRecordsLeftOut` counts the rest.
   */
  refusedRecords?: RefusedRecord[];
  /** Refused records beyond the first `maxRefusedRecordsListed`, counted but not listed; absent when none was left out. */
  refusedRecordsLeftOut?: number;
  /** The monthly cost of the resizes, when the target has prices (`costSummary`). */
  cost?: CostSummary;
  /** Present when no glob of the target's paths matches a YAML file at the commit: no manifest was read. */
  noManifests?: NoManifests;
  /** A busy pass's: who holds the target's Lease, since and until when. */
  heldBy?: LeaseHold;
  /** The volumes' usage, when the target configures `usage` (domain/volume-usage.ts): read, or why not. */
  usage?: UsageReport;
  /** Per template, growth proposed or why none, when the target configures `growth` and usage was read. */
  growth?: GrowthDecision[];
  /** Templates whose live size is larger than Git for good, and the size Git should say. */
  writeBack?: WriteBackDecision[];
}

export interface NoManifests {
  /** The target's paths, as configured. */
  paths: string[];
  /** Whether the target still reads size sources (then the pass is not blocked for it). */
  sizeSources: boolean;
  /** What happened and where the YAML files are (domain/path-matches.ts). */
  message: string;
}

/**
 * How many refused records a report lists. Whoever may create ConfigMaps in the state namespace can plant thousands:
 * listed in full, every pass's report (its JSON, the Lambda's result and log lines) would grow with them.
 */
export const maxRefusedRecordsListed = 20;

/** The report's `refusedRecords` (the first ones) and `refusedRecordsLeftOut`; neither when no record was refused. */
export function refusedRecordsField(refused: readonly RefusedRecord[]): Pick<PassReport, 'refusedRecords' | 'refusedRecordsLeftOut'> {
  if (refused.length === 0) return {};
  const leftOut = refused.length - maxRefusedRecordsListed;
  return { refusedRecords: refused.slice(0, maxRefusedRecordsListed), ...(leftOut > 0 ? { refusedRecordsLeftOut: leftOut } : {}) };
}

/** Every record a pass refused, listed or left out of its report. */
export function refusedRecordCount(report: Pick<PassReport, 'refusedRecords' | 'refusedRecordsLeftOut'>): number {
  return (report.refusedRecords?.length ?? 0) + (report.refusedRecordsLeftOut ?? 0);
}

/** The cost of the templates that resize (blocked ones cost nothing until unblocked); undefined without prices. */
export function costSummary(statefulSets: readonly StatefulSetReport[]): CostSummary | undefined {
  const perSet = statefulSets.flatMap((sts) => {
    const total = totalCost(sts.templates.filter((t) => t.action === 'resize').map((t) => t.cost));
    return total ? [{ namespace: sts.namespace, name: sts.name, ...total }] : [];
  });
  const all = totalCost(statefulSets.flatMap((sts) => sts.templates.filter((t) => t.action === 'resize').map((t) => t.cost)));
  return all ? { ...all, statefulSets: perSet } : undefined;
}

/** The server's version and what it means for this tool, for the report's header. */
export function serverReport(server: ServerVersion): NonNullable<PassReport['server']> {
  return { version: server.gitVersion, capabilities: describeCapabilities(capabilitiesOf(server)) };
}

export function outcomeOf(templates: readonly TemplateReport[], rollout: VolumeRollout): StatefulSetOutcome {
  const needsPerson = outcomeNeedingPerson(templates);
  if (needsPerson) return needsPerson;
  if (rollout.stoppedByTransientError) return 'in-progress';
  if (templates.every((t) => t.finished)) return 'converged';
  if (templates.every((t) => t.pvcs.every((p) => p.state === 'done' || p.state === 'waiting-for-pod' || p.state === 'missing' || p.state === 'waiting-for-window'))) return 'waiting';
  return 'in-progress';
}

/** Blocked, a resize failed for good, or a volume stalled on its node: the outcomes a plan and an applying pass read alike. */
function outcomeNeedingPerson(templates: readonly TemplateReport[]): 'blocked' | 'failed' | 'stalled' | undefined {
  if (templates.some((t) => t.action === 'blocked')) return 'blocked';
  if (templates.some((t) => t.pvcs.some((p) => p.state === 'failed'))) return 'failed';
  if (templates.some((t) => t.pvcs.some((p) => p.state === 'stalled-on-node'))) return 'stalled';
  return undefined;
}

export function describeTemplatePvcs(template: TemplatePlan, live: LiveStatefulSet): PvcProgress[] {
  // A template the live set does not have (a mapping's wrong name) has no replica PVCs, and never will: none is listed.
  if (!template.live) return [];
  const result: PvcProgress[] = [];
  for (let ordinal = 0; ordinal < live.replicas; ordinal++) {
    const name = pvcName(template.templateName, live.name, ordinal);
    const progress = describePvc(name, ordinal, template.pvcs.find((p) => p.name === name), template.to, template.volumeAttributesClassName);
    // A read-only pass says what an applying one would do: a volume within its driver's window waits for it.
    const window = progress.state === 'to-patch' ? template.modificationWindows?.find((w) => w.claim === name) : undefined;
    result.push(window ? { ...progress, state: 'waiting-for-window', message: windowWords(window) } : progress);
  }
  return result;
}

export function templateReport(
  template: TemplatePlan, status: TemplateStatus, progress: readonly PvcProgress[], events: readonly PvcEvent[],
): TemplateReport {
  const failureEvents = eventsOfFailedAttempts(progress, events);
  const atMaximum = atMaximumReport(progress, failureEvents, template.to);
  return {
    ...status,
    action: template.action,
    // Sizes the server holds are in its canonical spelling; the same size is shown as Git spells it.
    from: spelledLike(template.from, template.to),
    storageClassName: template.storageClassName,
    storageClassExpandable: template.storageClassExpandable,
    finished: isFinished(status, template),
    justFinished: false,
    reasons: template.reasons.map((r) => r.message),
    ...(template.reasons.length > 0 ? { reasonCodes: template.reasons.map((r) => r.code) } : {}),
    pvcs: datedFromEvents(progress, events, status.startedAt).map((p) => ({
      name: p.name, ordinal: p.ordinal, state: p.state, request: spelledLike(p.request, template.to), capacity: spelledLike(p.capacity, template.to),
      message: p.message, terminal: p.terminal, since: p.since,
      ...(template.volumeAttributesClassName !== undefined ? {
        volumeAttributesClass: { requested: p.requestedClass, current: p.currentClass, modifyStatus: p.modifyStatus },
      } : {}),
      ...(p.failedOn ? { failedOn: p.failedOn } : {}),
      ...(p.condition ? { condition: p.condition } : {}),
    })),
    storageLocation: template.desired.storageLocation,
    quota: template.quotaChecks.map((c) => ({
      quota: c.quotaName, resource: c.resource, used: formatBytesLike(c.usedBefore, template.to),
      growth: formatBytesLike(c.growth, template.to), limit: formatBytesLike(c.limit, template.to),
    })),
    failureEvents,
    ...(template.volumeAttributesClass ? { volumeAttributesClass: template.volumeAttributesClass } : {}),
    ...(template.desired.classLocation ? { classLocation: template.desired.classLocation } : {}),
    ...(template.serverNotes ? { serverNotes: template.serverNotes } : {}),
    ...volumesFromOf(template),
    ...(template.catchesUp ? { catchesUp: true as const } : {}),
    ...(template.heldForWriteBack !== undefined ? { heldForWriteBack: template.heldForWriteBack } : {}),
    ...(template.modificationWindows && (template.templateNeedsUpdate || template.pvcsToPatch.length > 0) ? { modificationWindows: template.modificationWindows } : {}),
    ...(atMaximum ? { atDriverMaximum: atMaximum } : {}),
    ...(template.cost ? {
      cost: {
        storageClassName: template.cost.storageClassName, growth: formatBytesLike(template.cost.growthBytes, template.to), currency: template.cost.currency,
        pricePerGiBMonth: template.cost.pricePerGiBMonth, monthlyIncrease: template.cost.monthlyIncrease,
      },
    } : {}),
  };
}

/** `volumesFrom` of a template that changes, when its volumes are not at its live size (see TemplateReport). */
function volumesFromOf(template: TemplatePlan): { volumesFrom?: string } {
  if (!template.templateNeedsUpdate && template.pvcsToPatch.length === 0) return {};
  const sizes = template.pvcs.map(committedBytes).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const [smallest, largest] = [sizes[0], sizes.at(-1)];
  if (smallest === undefined || largest === undefined || (smallest === largest && smallest === template.from?.bytes)) return {};
  const [low, high] = [formatBytesLike(smallest, template.to), formatBytesLike(largest, template.to)];
  return { volumesFrom: low === high ? low : `${low}–${high}` };
}

/**
 * A read-only report: what the plan says and where each PVC stands; with `nodeWaits`, a volume waiting for its node
 * longer than the policy allows is stalled (and the namespace's pods, when read, say what to do about it).
 */
export function reportFromPlan(
  plan: StatefulSetPlan, commitSha: string, nodeWaits?: { policy: NodeWaitPolicy; pods?: readonly LivePod[] },
): StatefulSetReport {
  const live = plan.live;
  const templates = plan.templates.map((template) => {
    const progress = live ? withNodeWaits(describeTemplatePvcs(template, live), live, nodeWaits?.policy, nodeWaits?.pods) : [];
    const status = live
      ? summariseTemplate(template, progress, live, commitSha, readStatusAnnotation(live))
      : { templateName: template.templateName, desiredSize: template.desired.storageText, commitSha, replicas: 0, readyReplicas: 0 };
    if (!live && template.reasons[0]) status.lastError = template.reasons[0].message;
    return templateReport(template, status, progress, []);
  });
  // A read-only pass says a resize failed for good as an applying one does (outcomeOf), so `plan` exits as `reconcile`.
  const outcome: StatefulSetOutcome = plan.outcome !== 'planned' ? plan.outcome
    : outcomeNeedingPerson(templates) ?? (templates.every((t) => t.finished) ? 'converged'
      : templates.every((t) => t.finished || t.heldForWriteBack !== undefined) ? 'waiting' : 'in-progress');
  return {
    namespace: plan.namespace, name: plan.name, outcome, podManagementPolicy: live?.podManagementPolicy ?? plan.desired.podManagementPolicy,
    replicas: live?.replicas, templateUpdate: undefined, templates,
    notes: plan.outcome === 'missing-in-cluster' ? ['not in the cluster: this tool never creates StatefulSets']
      : plan.templateOwner ? [`written by its operator (${describeOwner(plan.templateOwner)}): only the PVCs are grown, the StatefulSet is never written here`] : [],
  };
}

export function notStartedReport(plan: StatefulSetPlan): StatefulSetReport {
  return {
    namespace: plan.namespace, name: plan.name, outcome: 'not-started', podManagementPolicy: plan.desired.podManagementPolicy,
    replicas: plan.live?.replicas, templateUpdate: undefined, templates: [],
    notes: ['not started: the invocation was running out of time; the next pass continues'],
  };
}
