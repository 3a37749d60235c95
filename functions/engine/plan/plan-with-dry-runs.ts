// The plan checked by the API server: plan, read the VolumeAttributesClasses when a class changes, dry-run every PVC
// patch the plan wants (validation, admission, quota) and plan again with the refusals. Shared by passes (run-pass.ts)
// and pull-request validation.
import type { ClusterSnapshot } from '../../domain/live-state.ts';
import { capabilitiesOf } from '../../domain/server-capabilities.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { assembleDesired, desiredNamespaces, type DesiredInput } from '../desired/desired-input.ts';
import { dryRunCacheOf, type DryRunCache } from './dry-run-cache.ts';
import { namespaceScopeOf, passNow, type PassContext } from '../pass-context.ts';
import { markModificationWindows } from './modification-windows.ts';
import { planTarget, pvcKey, type StatefulSetPlan } from './plan.ts';
import { knownMaxima } from './plan-driver-maximum.ts';
import type { RememberedMaximum } from '../volumes/remembered-maximum.ts';
import { isNamespaceAllowed } from './allowed-namespaces.ts';
import { classToPatch } from './plan-volume-attributes.ts';

/** Below this much time left in the invocation, no further call is started (a pass reports the rest as not started). */
export const minimumRemainingMs = 30_000;

/** Plans, then dry-runs every PVC patch the plan wants (validation, admission and quota on the real server). */
export async function planWithDryRuns(
  ctx: Pick<PassContext, 'cluster' | 'target' | 'apiConcurrency' | 'remainingMs' | 'now'>, input: DesiredInput,
  /** Dry-run answers already had in this pass, keyed `namespace/pvc=storage` (a re-plan need not ask again). */
  answered: Map<string, string | undefined> = new Map(),
  /** Answers of earlier passes, reused while the PVC, the quotas and the StorageClasses are unchanged. */
  cache: DryRunCache = dryRunCacheOf(ctx.cluster),
): Promise<{ plans: StatefulSetPlan[]; snapshot: ClusterSnapshot; unchecked: Set<string>; driverMaxima: ReadonlyMap<string, RememberedMaximum> }> {
  const unchecked = new Set<string>();
  const scope = namespaceScopeOf(ctx.target);
  const namespaces = desiredNamespaces(input).filter((ns) => isNamespaceAllowed(ns, scope));
  const snapshot = await ctx.cluster.readSnapshot(namespaces);
  // Sets sized by size sources are built from the live objects just read.
  const desired = assembleDesired(input, snapshot);
  const { guardrails, prices } = ctx.target;
  const now = passNow(ctx);
  // The drivers' maxima, read once from every claim and annotation: each plan below and the pass's size proposals use them.
  const driverMaxima = knownMaxima(snapshot, now);
  const options = { allowedNamespaces: scope.allow, stateNamespace: scope.state, now, driverMaxima, ...(guardrails ? { guardrails } : {}), ...(prices ? { prices } : {}) };
  // Which volumes are within their driver's modification window, by the pass's clock (a change to them waits).
  const withWindows = (plans: StatefulSetPlan[]): StatefulSetPlan[] => {
    markModificationWindows(plans, snapshot, passNow(ctx), ctx.target.modificationLimits);
    return plans;
  };
  let first = planTarget(desired, snapshot, options);
  // VolumeAttributesClasses are read only when a template's class changes (one LIST), then the plan is made again.
  const api = snapshot.server ? capabilitiesOf(snapshot.server).volumeAttributesClassApi : 'storage.k8s.io/v1';
  if (api !== 'none' && first.some((sts) => sts.templates.some((t) => t.volumeAttributesClass?.to !== undefined))) {
    const classes = await ctx.cluster.listVolumeAttributesClasses(api);
    if (classes) snapshot.volumeAttributesClasses = classes;
    first = planTarget(desired, snapshot, options);
  }
  const patches = first.flatMap((sts) => sts.templates
    .filter((t) => t.action === 'resize')
    .flatMap((t) => t.pvcsToPatch.map((name) => ({ namespace: sts.namespace, name, storage: t.desired.storageText, className: classToPatch(t, sts.namespace, name, snapshot) }))));
  if (patches.length === 0) return { plans: withWindows(first), snapshot, unchecked, driverMaxima };
  const rejections = new Map<string, string>();
  await mapWithConcurrency(patches, ctx.apiConcurrency ?? 4, async (patch) => {
    const asked = patch.className === undefined ? patch.storage : `${patch.storage},class=${patch.className}`;
    const key = `${pvcKey(patch.namespace, patch.name)}=${asked}`;
    const cacheKey = cache.key(snapshot, patch.namespace, patch.name, asked);
    let rejection: string | undefined;
    if (answered.has(key)) rejection = answered.get(key);
    else if (cacheKey !== undefined && cache.has(cacheKey)) rejection = cache.get(cacheKey);
    else if (ctx.remainingMs && ctx.remainingMs() < minimumRemainingMs) {
      // Out of time: the StatefulSets whose PVCs were not dry-run are reported as not started (plan mode included).
      unchecked.add(`${patch.namespace}/${patch.name}`);
      return;
    } else {
      rejection = await ctx.cluster.dryRunPvcStorage(patch.namespace, patch.name, patch.storage, patch.className);
      if (cacheKey !== undefined) cache.set(cacheKey, rejection);
    }
    answered.set(key, rejection);
    if (rejection !== undefined) rejections.set(pvcKey(patch.namespace, patch.name), rejection);
  });
  return { plans: withWindows(planTarget(desired, snapshot, { ...options, dryRunRejections: rejections })), snapshot, unchecked, driverMaxima };
}
