// The plan of a volumeAttributesClassName change (KEP-3751): the class a template asks for in Git, which PVCs must be
// patched to it, and why it cannot be done (the server, the class, its driver, the per-class quota). Pure; plan.ts
// calls it for each template.
import type { DesiredTemplate } from '../../domain/desired-state.ts';
import type { ClusterSnapshot, LivePvc, LiveQuota, LiveStorageClass, LiveTemplate } from '../../domain/live-state.ts';
import { formatBytesLike, type Quantity } from '../../domain/quantity.ts';
import { capabilitiesOf } from '../../domain/server-capabilities.ts';
import { groupDigits } from '../../domain/spelling.ts';

export type ClassBlockCode =
  | 'volume-attributes-class-unsupported'
  | 'volume-attributes-class-missing'
  | 'volume-attributes-class-driver-mismatch'
  | 'volume-attributes-class-removed';

export interface ClassChange {
  /** The live template's class. */
  from: string | undefined;
  /** The class Git asks for (undefined: none). */
  to: string | undefined;
}

/**
 * The class Git asks for: the manifest's, or, for a set sized from a values file, the mapped class (`value:
 * volumeAttributesClassName`) or, when none is mapped, the live template's.
 */
export function wantedClass(desired: DesiredTemplate, live: LiveTemplate, sizedBy: boolean): string | undefined {
  const written = desired.volumeAttributesClassName === '' ? undefined : desired.volumeAttributesClassName;
  return sizedBy && written === undefined ? live.volumeAttributesClassName : written;
}

/** A PVC whose `spec.volumeAttributesClassName` is not the wanted class (a class removed in Git is not patched). */
export function pvcNeedsClass(pvc: LivePvc, wanted: string | undefined): boolean {
  return wanted !== undefined && pvc.volumeAttributesClassName !== wanted;
}

/** The class a PVC's patch (and its dry run) carries: the wanted one, when the PVC asks for another. */
export function classToPatch(template: { volumeAttributesClassName?: string }, namespace: string, name: string, snapshot: ClusterSnapshot): string | undefined {
  const wanted = template.volumeAttributesClassName;
  const pvc = snapshot.namespaces.get(namespace)?.pvcs.find((p) => p.name === name);
  return wanted !== undefined && pvc?.volumeAttributesClassName !== wanted ? wanted : undefined;
}

/** The change to plan, or undefined when the template and its PVCs already ask for the class Git asks for. */
export function classChangeOf(live: LiveTemplate, wanted: string | undefined, pvcs: readonly LivePvc[]): ClassChange | undefined {
  const from = live.volumeAttributesClassName || undefined;
  if (from === wanted && !pvcs.some((p) => pvcNeedsClass(p, wanted))) return undefined;
  return { from, to: wanted };
}

/** Why the class change cannot be made, if it cannot: each reason says which rule, where, and what to do. */
export function classBlockReasons(args: {
  change: ClassChange; storageClass: LiveStorageClass | undefined; snapshot: ClusterSnapshot;
}): Array<{ code: ClassBlockCode; message: string }> {
  const { change, storageClass, snapshot } = args;
  if (change.to === undefined) {
    return [{
      code: 'volume-attributes-class-removed',
      message: `the volumeClaimTemplate no longer names a volumeAttributesClassName (the cluster's is ${change.from ?? '(none)'}); `
        + 'Kubernetes refuses to empty a PVC\'s class once its volume has one ("update to empty string is forbidden when '
        + 'status.currentVolumeAttributesClassName is not nil"); name a class in Git, for instance the current one',
    }];
  }
  const server = snapshot.server;
  const capabilities = server ? capabilitiesOf(server) : undefined;
  if (capabilities?.volumeAttributesClass === 'unsupported') {
    return [{
      code: 'volume-attributes-class-unsupported',
      message: `the volumeClaimTemplate changes its volumeAttributesClassName to ${change.to}, but the API server is ${capabilities.version.gitVersion}: `
        + 'VolumeAttributesClass needs Kubernetes 1.34 (or 1.31-1.33 with the VolumeAttributesClass feature gate and storage.k8s.io/v1beta1 enabled); '
        + 'upgrade the cluster or keep the class as it is in Git',
    }];
  }
  const classes = snapshot.volumeAttributesClasses;
  if (classes === undefined) {
    return [{
      code: 'volume-attributes-class-unsupported',
      message: `the volumeClaimTemplate changes its volumeAttributesClassName to ${change.to}, but the API server`
        + `${server ? ` (${server.gitVersion})` : ''} does not serve VolumeAttributesClasses; on 1.31-1.33 enable the VolumeAttributesClass feature gate and storage.k8s.io/v1beta1, or keep the class as it is in Git`,
    }];
  }
  const found = classes.find((c) => c.name === change.to);
  if (!found || found.deleting) {
    const known = classes.filter((c) => !c.deleting).map((c) => c.name);
    return [{
      code: 'volume-attributes-class-missing',
      message: `VolumeAttributesClass ${change.to} ${found ? 'is being deleted' : 'does not exist'} in the cluster `
        + `(it has ${known.join(', ') || 'none'}); the API server accepts the name anyway and the PVCs would wait in modifyVolumeStatus Pending, `
        + 'so create the class first (kubectl apply) or name an existing one',
    }];
  }
  if (storageClass?.provisioner !== undefined && storageClass.provisioner !== found.driverName) {
    return [{
      code: 'volume-attributes-class-driver-mismatch',
      message: `VolumeAttributesClass ${found.name} is for driver ${found.driverName}, but StorageClass ${storageClass.name} provisions with `
        + `${storageClass.provisioner}: the PVCs' driver could never apply it; name a class of ${storageClass.provisioner}`,
    }];
  }
  return [];
}

/** The class of a ResourceQuota scoped to VolumeAttributesClasses, per KEP-3751 (`scopeName: VolumeAttributesClass`). */
function countsFor(quota: LiveQuota, pvc: { spec?: string; current?: string; target?: string }): boolean {
  const scoped = quota.volumeAttributesClasses ?? [];
  return [pvc.spec, pvc.current, pvc.target].some((c) => c !== undefined && scoped.includes(c));
}

export interface ClassQuotaCheck {
  quotaName: string;
  resource: string;
  limit: bigint;
  usedBefore: bigint;
  growth: bigint;
}

/**
 * ResourceQuotas scoped to the wanted class (`scopeName: VolumeAttributesClass`). A claim counts there for its spec
 * class, its current class or its modification's target (KEP-3751), so the template's PVCs count from their patch on:
 * with max(request, allocatedResources) grown to the template's size, and as one claim each if they did not count yet.
 */
export function classQuotaChecks(args: {
  quotas: readonly LiveQuota[]; namespacePvcs: readonly LivePvc[]; templatePvcs: readonly LivePvc[]; to: string; size: Quantity;
  usageOf: (pvc: LivePvc) => bigint;
}): { checks: ClassQuotaCheck[]; reasons: string[] } {
  const checks: ClassQuotaCheck[] = [];
  const reasons: string[] = [];
  const of = (p: LivePvc) => ({ spec: p.volumeAttributesClassName, current: p.currentVolumeAttributesClassName, target: p.modifyVolumeStatus?.targetVolumeAttributesClassName });
  for (const quota of args.quotas) {
    const scoped = quota.volumeAttributesClasses;
    if (!scoped?.includes(args.to)) continue;
    const counted = args.namespacePvcs.filter((p) => countsFor(quota, of(p)));
    const entering = args.templatePvcs.filter((p) => !countsFor(quota, of(p)));
    for (const [resource, limit] of Object.entries(quota.hard)) {
      let usedBefore: bigint;
      let growth: bigint;
      if (resource === 'requests.storage') {
        usedBefore = counted.reduce((sum, p) => sum + args.usageOf(p), 0n);
        growth = args.templatePvcs.reduce((sum, p) => {
          const before = countsFor(quota, of(p)) ? args.usageOf(p) : 0n;
          return sum + maxBig(args.usageOf(p), args.size.bytes) - before;
        }, 0n);
      } else if (resource === 'persistentvolumeclaims' || resource === 'count/persistentvolumeclaims') {
        usedBefore = BigInt(counted.length);
        growth = BigInt(entering.length);
      } else {
        continue;
      }
      if (growth === 0n) continue;
      checks.push({ quotaName: quota.name, resource, limit: limit.bytes, usedBefore, growth });
      if (usedBefore + growth > limit.bytes) {
        const show = (n: bigint): string => groupDigits(resource === 'requests.storage' ? formatBytesLike(n, args.size) : String(n));
        reasons.push(`VolumeAttributesClass ${args.to} for these PVCs needs ${show(growth)} more ${resource} but ResourceQuota `
          + `${quota.name} (scoped to VolumeAttributesClass ${scoped.join(', ')}) has ${show(maxBig(0n, limit.bytes - usedBefore))} left `
          + `(used ${show(usedBefore)} of ${show(limit.bytes)}); raise the quota or choose another class`);
      }
    }
  }
  return { checks, reasons };
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
