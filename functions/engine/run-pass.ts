// One reconcile pass for one target: read all state (Git head, cluster), plan, then — only if there is something to
// write — take the target's Lease and apply: resume or start template updates, patch PVCs (reconcile-volumes.ts),
// and record the KEP's feedback as an annotation and Events on the StatefulSet (Warnings for what is blocked or
// failed: problem-events.ts).
import type { ClusterSnapshot, LivePod, LiveStatefulSet } from '../domain/live-state.ts';
import { sameSize } from '../domain/quantity.ts';
import type { StatefulSetPlan } from './plan/plan.ts';
import { statusCarrier, type StatusCarrier } from './report/status-carrier.ts';
import { ClusterError } from './ports.ts';
import { describePatch, reconcileVolumes, type VolumeRollout } from './volumes/reconcile-volumes.ts';
import { RecreationBlockedError, updateLiveTemplate, type RecreationCluster } from './records/recreate-statefulset.ts';
import { LazyLease } from './lease/lazy-lease.ts';
import { holdWords, isHeldByOther, leaseHoldOf, waitingStatefulSets } from './lease/busy-pass.ts';
import { fencedCluster } from './lease/fenced-cluster.ts';
import { legacyScanNeeded, passLedger, recordedInLedger } from './records/ledger.ts';
import { findRecords, recreateAbsentStatefulSets, resumeRecords, screenFound, templateUpdateWords } from './records/resume.ts';
import { leaseMarksDiffer, recordStanding } from './records/outstanding.ts';
import {
  isFinished, modificationTimes, readStatusAnnotation, renderStatusAnnotation, statusAnnotation, summariseTemplate, type TemplateStatus,
} from './report/template-status.ts';
import { mapWithConcurrency } from './concurrency.ts';
import type { PvcState } from './volumes/pvc-progress.ts';
import { nodeWaitPolicy, withNodeWaits } from './volumes/node-expansion.ts';
import {
  costSummary, describeTemplatePvcs, notStartedReport, outcomeOf, refusedRecordsField, reportFromPlan, serverReport, templateReport,
  type PassReport, type StatefulSetReport, type TemplateReport,
} from './report/pass-report.ts';
import { noManifestsAt } from './desired/no-manifests.ts';
import { desiredNamespaces, mappedValuesOf, readTargetDesired } from './desired/desired-input.ts';
import { minimumRemainingMs, planWithDryRuns } from './plan/plan-with-dry-runs.ts';
import { holdTemplates, shrinksLiveTemplate } from './plan/write-back-hold.ts';
import { namespaceScopeOf, passNow, type PassContext, type SizeProposals } from './pass-context.ts';
import { isNamespaceAllowed } from './plan/allowed-namespaces.ts';
import type { RefusedRecord } from './records/refused.ts';
import { count } from '../domain/spelling.ts';
import { modificationLimitOf, modificationsToRemember, type ModificationLimit } from '../domain/modification-limit.ts';
import { recordProblemEvents } from './report/problem-events.ts';
import { templateChangeWords, templateFinishedEvent, templatesUpdatedEvent, templateUpdateChange } from './report/template-events.ts';

// The report's types live with their builders; passes and PR validation import them from here as before.
export type { CostReport, CostSummary, PassMode, PassReport, PvcReport, StatefulSetOutcome, StatefulSetReport, TemplateReport } from './report/pass-report.ts';
export { costSummary, reportFromPlan } from './report/pass-report.ts';

export type { PassContext, PassTarget } from './pass-context.ts';
export { planWithDryRuns } from './plan/plan-with-dry-runs.ts';

/** Each target's Lease is `sts-volume-gitops-<target>` in its state namespace (the RBAC manifest names it too). */
export const leasePrefix = 'sts-volume-gitops-';

export async function runPass(ctx: PassContext): Promise<PassReport> {
  const say = ctx.onEvent ?? (() => undefined);
  const leaseName = `${leasePrefix}${ctx.target.name}`;
  const leaseNamespace = ctx.target.stateNamespace;
  const seenLease = await ctx.cluster.readLease(leaseNamespace, leaseName);
  const head = await ctx.git.readBranchHead();
  const base: Omit<PassReport, 'outcome' | 'statefulSets'> = {
    target: ctx.target.name, mode: ctx.mode, commitSha: head.commitSha, manifestErrors: [], notes: [],
  };
  const noManifests = noManifestsAt(head, ctx.target);
  if (noManifests) base.noManifests = noManifests;
  const desired = readTargetDesired(head.files, ctx.target, head.tooLarge);
  const legacy = legacyScanNeeded(seenLease);
  // A record is acted on only while the Lease's signed mark lists it and Git still has its StatefulSet.
  const place = { leaseNamespace, leaseName, target: ctx.target.name };
  const standing = recordStanding(seenLease, ctx.recordKey, place, desired, head.commitSha);
  if (isHeldByOther(seenLease, ctx.holderIdentity, passNow(ctx))) {
    const heldBy = leaseHoldOf(seenLease, leaseNamespace, leaseName);
    const busy = { ...base, outcome: 'busy' as const, heldBy, notes: [`lease ${heldBy.lease}: ${holdWords(heldBy)}`] };
    say(`busy: ${holdWords(heldBy)}`);
    if (ctx.mode !== 'apply') return { ...busy, statefulSets: [] };
    const found = await findRecords(ctx, legacy, desiredNamespaces(desired));
    const absent = await recreateAbsentStatefulSets(ctx, found, standing, seenLease);
    const waiting = await waitingStatefulSets(ctx, desired, head.commitSha, heldBy);
    return { ...busy, statefulSets: waiting, notes: [...busy.notes, ...absent.notes], ...refusedRecordsField(absent.refused) };
  }

  base.manifestErrors = [...desired.errors];
  const ledger = passLedger(seenLease, ctx.recordKey, place, standing.outstanding, legacy);
  const lease = new LazyLease(ctx, leaseNamespace, leaseName, seenLease, ledger);
  // Once the Lease is taken, every write of the pass is fenced by it: a pass that could not renew stops writing.
  ctx = { ...ctx, cluster: fencedCluster(ctx.cluster, lease) };
  // Every record call of the pass goes through the ledger: a record is saved only once the Lease lists it, and the Lease
  // stops listing it as soon as it is deleted.
  const recordingCluster = recordedInLedger(ctx.cluster, ledger, () => lease.listOutstanding(), ctx.recordKey, () => passNow(ctx));
  const outOfTime = (): boolean => ctx.remainingMs !== undefined && ctx.remainingMs() < minimumRemainingMs;
  const reports: StatefulSetReport[] = [];
  let incomplete = false;
  let completed = false;
  let refused: readonly RefusedRecord[] | undefined;
  let proposals: Promise<SizeProposals> | undefined;
  // Usage is read beside the cluster (it needs only the namespaces), and decided from once the plan is made; it
  // writes nothing and decides nothing the apply does.
  const proposeSizes = ctx.proposeSizes?.(desiredNamespaces(desired).filter((ns) => isNamespaceAllowed(ns, namespaceScopeOf(ctx.target))), passNow(ctx),
    { statefulSets: desired.statefulSets, liveAnnotated: mappedValuesOf(desired).length > 0 });
  try {
    // Template updates a crashed or timed-out pass left half done come first: their StatefulSet may not even exist now.
    // Plan mode writes nothing, so it has no use for the records (and never LISTs them).
    // Every record found is authenticated first; a refused one is reported and left in place (records/refused.ts).
    const found = ctx.mode === 'apply'
      ? await screenFound(ctx, await findRecords(ctx, legacy, desiredNamespaces(desired)), standing, ledger)
      : { trusted: [], refused: [], notes: [] };
    refused = found.refused;
    base.notes.push(...found.notes);
    const resumed = await resumeRecords(ctx, found.trusted, recordingCluster, lease, outOfTime);
    base.notes.push(...resumed.notes);
    const { plans, snapshot, unchecked, driverMaxima } = await planWithDryRuns(ctx, desired);
    // A live template grown outside Git is not shrunk back while its write-back proposes it (write-back-hold.ts).
    if (ctx.writeBackHolds && plans.some((p) => p.templates.some(shrinksLiveTemplate))) holdTemplates(plans, await ctx.writeBackHolds(plans));
    if (snapshot.server) base.server = serverReport(snapshot.server);
    say(`plan at ${head.commitSha.slice(0, 7)}: ${count(plans.length, 'StatefulSet')}, ${count(desired.errors.length, 'manifest error')}`);
    proposals = proposeSizes?.({ plans, snapshot, driverMaxima }).catch((error: unknown) => {
      base.notes.push(`size proposals not made: ${error instanceof Error ? error.message : String(error)}`);
      return {};
    });
    // StatefulSets are independent of each other: a few are applied at once (bounded, to stay polite to the server);
    // the reports keep the plan's order.
    reports.push(...await mapWithConcurrency<StatefulSetPlan, StatefulSetReport>(plans, ctx.mode === 'apply' ? ctx.apiConcurrency ?? 4 : 1, async (plan) => {
      if (resumed.waiting.has(`${plan.namespace}/${plan.name}`)) {
        return { ...reportFromPlan(plan, head.commitSha), outcome: 'waiting', notes: ['waiting for the garbage collector to remove the old StatefulSet'] };
      }
      const notDryRun = plan.templates.some((t) => t.pvcsToPatch.some((name) => unchecked.has(`${plan.namespace}/${name}`)));
      if (notDryRun || outOfTime()) {
        incomplete = true;
        return notStartedReport(plan);
      }
      return ctx.mode === 'plan'
        ? reportFromPlan(plan, head.commitSha, { policy: nodeWaitPolicy(ctx.target, passNow(ctx)), pods: snapshot.namespaces.get(plan.namespace)?.pods ?? [] })
        : warnOfProblems(ctx, plan, await applyStatefulSet(ctx, plan, head.commitSha, snapshot, lease, recordingCluster, resumed.revisions.get(`${plan.namespace}/${plan.name}`)), lease);
    }));
    completed = true;
  } finally {
    await lease.release(completed);
  }
  // A pass that wrote nothing leaves on the Lease what it learnt, once, when that differs from what the Lease says: the
  // old locations found clean (so the passes after it need not list them), recreations finished, a dead holder's hold
  // ended (no holder is written: it takes nothing). The first pass of a target creates the Lease so.
  const marks = ledger.marks(true);
  if (ctx.mode === 'apply' && !lease.taken && leaseMarksDiffer(seenLease, marks)) {
    await ctx.cluster.markLeaseFree(leaseNamespace, leaseName, seenLease, marks).catch((error: unknown) => {
      // Someone wrote the Lease since it was read: what it says now is theirs to say, and the next pass reads it.
      if (!(error instanceof ClusterError && error.status === 409)) throw error;
    });
  }
  if (incomplete) base.notes.push('stopped starting new StatefulSets: the invocation is running out of time');
  const cost = costSummary(reports);
  const sizes = await proposals ?? {};
  if (sizes.usage?.failure) say(`usage not read from ${sizes.usage.source}: ${sizes.usage.failure.message}; growth skipped this pass`);
  return { ...base, outcome: incomplete ? 'incomplete' : 'ok', statefulSets: reports, ...(cost ? { cost } : {}), ...refusedRecordsField(refused ?? []), ...sizes };
}

async function applyStatefulSet(
  ctx: PassContext, plan: StatefulSetPlan, commitSha: string, snapshot: ClusterSnapshot, lease: LazyLease,
  recordingCluster: RecreationCluster, knownRevision: string | undefined,
): Promise<StatefulSetReport> {
  const say = ctx.onEvent ?? (() => undefined);
  if (plan.outcome !== 'planned' || !plan.live) return reportFromPlan(plan, commitSha);
  const namespace = snapshot.namespaces.get(plan.namespace);
  let live: LiveStatefulSet = plan.live;
  const report = reportFromPlan(plan, commitSha);
  const id = `${plan.namespace}/${plan.name}`;

  // A set another object controls is its operator's: never deleted, recreated or annotated here (its PVCs may be grown).
  const ours = plan.live.controllerOwner === undefined;
  try {
    const resizing = ours ? plan.templates.filter((t) => t.action === 'resize' && t.templateNeedsUpdate) : [];
    if (resizing.length > 0) {
      await lease.ensure();
      const sizes = new Map(resizing.map((t) => [t.templateName, t.desired.storageText]));
      const classes = new Map(resizing.flatMap((t) => (t.volumeAttributesClass?.to !== undefined ? [[t.templateName, t.volumeAttributesClass.to] as const] : [])));
      const changes = resizing.map(templateUpdateChange);
      // The status annotation (pending) goes in with the new template: if a later write of it is lost, the set still
      // carries ours, so the finish is noticed and reported whatever happens in between.
      const { outcome, stored } = await updateLiveTemplate(live, sizes, recordingCluster, ctx.timing,
        { recordNamespace: ctx.target.stateNamespace, target: ctx.target.name }, { [statusAnnotation]: pendingStatus(plan, live, commitSha, passNow(ctx)) }, classes);
      report.templateUpdate = outcome;
      say(`${id}: template ${changes.map(templateChangeWords).join(', ')} ${templateUpdateWords[outcome]}`);
      if (outcome === 'waiting-for-deletion') return { ...report, outcome: 'waiting', notes: [...report.notes, 'waiting for the garbage collector to remove the old StatefulSet'] };
      if (outcome === 'record-outdated') return { ...report, outcome: 'waiting', notes: [...report.notes, 'the StatefulSet changed while its template was being updated; the next pass starts from it as it is now'] };
      live = stored ?? (await ctx.cluster.getStatefulSet(plan.namespace, plan.name)) ?? live;
      const updated = templatesUpdatedEvent(changes, commitSha);
      await ctx.cluster.recordEvent(involved(live), 'Normal', updated.reason, updated.message);
    }

    // The pod template never changes here, so the revision read before any recreation is still the current one.
    const pods = namespace?.pods ?? [];
    const needsPatching = plan.templates.some((t) => t.action === 'resize' && t.pvcsToPatch.length > 0);
    if (needsPatching) await lease.ensure();
    const carrier = statusCarrier(ctx, plan, live);
    if (needsPatching && carrier && carrier.annotations[statusAnnotation] === undefined) {
      // A template brought to size by someone else (or an older version) carries no annotation of ours: write it
      // before the patches, or a lost write after them would leave the finish unreported for good.
      await carrier.write(pendingStatus(plan, { ...live, annotations: carrier.annotations }, commitSha, passNow(ctx)));
    }
    const revision = plan.live.updateRevision ?? knownRevision ?? live.updateRevision;
    const rollout = await reconcileVolumes(live, plan.templates, pods, ctx.cluster, revision);
    for (const patched of rollout.patched) say(`${id}: patched PVC ${patched.pvcName} (replica ${patched.ordinal}) to ${describePatch(patched)}`);
    for (const failure of rollout.failures) {
      say(`${id}: ${failure.transient ? 'transient error' : 'failed'} patching ${failure.pvcName}: ${failure.message}`);
    }
    return await finishReport(ctx, plan, live, rollout, report, commitSha, lease, carrier, pods);
  } catch (error) {
    if (error instanceof RecreationBlockedError) {
      say(`${id}: blocked: ${error.message}`);
      return { ...report, outcome: 'blocked', blockedBy: error.code, notes: [...report.notes, error.message] };
    }
    if (error instanceof ClusterError && error.transient) {
      say(`${id}: transient error, retrying next pass: ${error.message}`);
      return { ...report, outcome: 'in-progress', notes: [...report.notes, `transient error, retried next pass: ${error.message}`] };
    }
    throw error;
  }
}

async function finishReport(
  ctx: PassContext, plan: StatefulSetPlan, live: LiveStatefulSet, rollout: VolumeRollout, report: StatefulSetReport,
  commitSha: string, lease: LazyLease, carrier: StatusCarrier | undefined, pods: readonly LivePod[],
): Promise<StatefulSetReport> {
  const say = ctx.onEvent ?? (() => undefined);
  const held = carrier?.annotations[statusAnnotation];
  const previous = readStatusAnnotation({ ...live, annotations: carrier?.annotations ?? {} });
  const statuses: TemplateStatus[] = [];
  const templates: TemplateReport[] = [];
  let growing = false;
  // A failed claim's report quotes its Events; one failing or retrying on the controller is dated by them (failure-evidence.ts).
  const needsEvents = [...rollout.progress.values()].flat().some((p) => p.state === 'failed' || (p.state === 'retrying' && p.condition?.type === 'ControllerResizeError'));
  const events = needsEvents ? await ctx.cluster.listPvcWarningEvents(plan.namespace) : [];
  const nodeWaits = nodeWaitPolicy(ctx.target, passNow(ctx));
  for (const template of plan.templates) {
    const progress = withNodeWaits(rollout.progress.get(template.templateName) ?? describeTemplatePvcs(template, live), live, nodeWaits, pods);
    if (progress.some((p) => growingStates.has(p.state))) growing = true;
    const status = withVolumesModified(summariseTemplate(template, progress, live, commitSha, previous, passNow(ctx)), template, rollout, passNow(ctx), ctx.target.modificationLimits);
    statuses.push(status);
    templates.push(templateReport(template, status, progress, events));
  }
  const writes: Array<() => Promise<void>> = [];
  const rendered = renderStatusAnnotation(statuses);
  // A set this tool never touched and that has nothing to do gets no annotation: the first pass over a cluster writes
  // nothing. One whose PVCs are growing to the desired size is concerned though nothing is left to patch: the pass that
  // patched them may have lost its annotation write (a 503), and without it the finish would never be reported.
  const concerned = held !== undefined || plan.templates.some((t) => t.action !== 'unchanged') || growing;
  if (carrier && concerned && held !== rendered) writes.push(() => carrier.write(rendered));
  // One Event per StatefulSet per pass for its patches (and one for its failures), not one per PVC: at thousands of
  // PVCs the Events would outnumber the patches' own calls.
  if (rollout.patched.length > 0) {
    writes.push(() => ctx.cluster.recordEvent(involved(live), 'Normal', 'SuccessfulPatchPVC',
      `patched ${rollout.patched.map((p) => `PVC ${p.pvcName} of Pod ${p.ordinal} to ${describePatch(p)}`).join('; ')}`));
  }
  if (rollout.failures.length > 0) {
    writes.push(() => ctx.cluster.recordEvent(involved(live), 'Warning', 'FailedToPatchPVC',
      `StatefulSet ${live.namespace}/${live.name} failed to patch ${rollout.failures.map((f) => `PVC ${f.pvcName} of Pod ${f.ordinal}: ${f.message}`).join('; ')}`));
  }
  for (const [index, template] of plan.templates.entries()) {
    const status = statuses[index];
    const before = previous.find((p) => p.templateName === template.templateName);
    const finishedBefore = before !== undefined && status !== undefined && sameSize(before.desiredSize, status.desiredSize)
      && before.desiredClass === status.desiredClass && before.readyReplicas === before.replicas
      && before.finishedReconciliationGeneration !== undefined;
    // Without an earlier annotation of ours the set was already at size: nothing finished because of us.
    if (status && isFinished(status, template) && before !== undefined && !finishedBefore) {
      const finishedTemplate = templates[index];
      if (finishedTemplate) finishedTemplate.justFinished = true;
      const finished = templateFinishedEvent(status);
      say(`${live.namespace}/${live.name}: finished: ${finished.message}`);
      writes.push(() => ctx.cluster.recordEvent(involved(live), 'Normal', finished.reason, finished.message));
    }
  }
  if (writes.length > 0) await lease.ensure();
  for (const write of writes) await write();
  const outcome = outcomeOf(templates, rollout);
  return { ...report, outcome, templates };
}

/**
 * The status with the time this pass patched each of the template's volumes added to their record, for a driver with
 * a modification limit (it counts them); a driver without one needs no such record, so the annotation stays as it
 * was. One patch is one modification, size and class together: aws-ebs-csi-driver coalesces the resizer's and the
 * modifier's requests for a volume into one ModifyVolume call (its modify-volume-request-handler-timeout).
 */
function withVolumesModified(
  status: TemplateStatus, template: StatefulSetPlan['templates'][number], rollout: VolumeRollout, now: Date, limits: Readonly<Record<string, ModificationLimit>> | undefined,
): TemplateStatus {
  const limit = modificationLimitOf(template.driver, limits);
  if (limit === undefined) return status;
  const patched = rollout.patched.filter((p) => template.pvcs.some((c) => c.name === p.pvcName) && (p.storage !== undefined || p.volumeAttributesClassName !== undefined));
  if (patched.length === 0) return status;
  const record = { ...status.volumesModifiedAt };
  for (const { pvcName } of patched) {
    const kept = modificationsToRemember([...modificationTimes(record[pvcName]).map((t) => new Date(t)).filter((t) => !Number.isNaN(t.getTime())), now], limit, now);
    record[pvcName] = kept.length === 1 ? (kept[0] ?? now).toISOString() : kept.map((t) => t.toISOString());
  }
  return { ...status, volumesModifiedAt: record };
}

/** The status annotation as it stands before this pass patches anything. */
function pendingStatus(plan: StatefulSetPlan, live: LiveStatefulSet, commitSha: string, now: Date): string {
  const previous = readStatusAnnotation(live);
  return renderStatusAnnotation(plan.templates.map((t) => summariseTemplate(t, describeTemplatePvcs(t, live), live, commitSha, previous, now)));
}

/** PVCs whose request is the desired size (and class) and whose capacity (or volume) has not reached it yet. */
const growingStates = new Set<PvcState>([
  'patched', 'retrying', 'waiting-for-window', 'resizing-controller', 'waiting-for-node', 'resizing-node', 'stalled-on-node', 'modifying', 'class-pending', 'failed',
]);

/** A blocked or failed set's Warning Events (problem-events.ts), on the live object the plan read. */
function warnOfProblems(ctx: PassContext, plan: StatefulSetPlan, report: StatefulSetReport, lease: LazyLease): Promise<StatefulSetReport> {
  return plan.live ? recordProblemEvents(ctx, involved(plan.live), report, lease) : Promise.resolve(report);
}

function involved(live: LiveStatefulSet): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: live.namespace, name: live.name, uid: live.uid };
}
