// ResourceQuota headroom (KEP-1790): quota counts max(spec request, allocatedResources) per PVC, in total and per
// StorageClass; resizes that do not fit are blocked. Apart from plan.ts, which applies it last, across the whole plan.
import type { ClusterSnapshot, LivePvc } from '../../domain/live-state.ts';
import { formatBytesLike } from '../../domain/quantity.ts';
import type { StatefulSetPlan } from './plan-types.ts';
import { showSize } from '../../domain/spelling.ts';

/** What quota counts for a PVC: max(spec request, allocatedResources) (KEP-1790). */
export function quotaUsageOf(pvc: LivePvc): bigint {
  const request = pvc.request?.bytes ?? 0n;
  const allocated = pvc.allocated?.bytes ?? 0n;
  return request > allocated ? request : allocated;
}

const classQuotaSuffix = '.storageclass.storage.k8s.io/requests.storage';

/**
 * Blocks resizes whose growth does not fit in the ResourceQuota headroom. Resizes in the same namespace share it,
 * so they are admitted in plan order and each one's growth counts against the next.
 */
export function applyQuotaHeadroom(plans: StatefulSetPlan[], snapshot: ClusterSnapshot): void {
  const grown = new Map<string, bigint>(); // `namespace|resource` -> growth already admitted this pass
  for (const sts of plans) {
    const namespace = snapshot.namespaces.get(sts.namespace);
    if (!namespace || namespace.quotas.length === 0) continue;
    for (const template of sts.templates) {
      if (template.action !== 'resize') continue;
      const growth = template.pvcs
        .filter((p) => template.pvcsToPatch.includes(p.name))
        .reduce((sum, p) => sum + maxBig(0n, template.to.bytes - quotaUsageOf(p)), 0n);
      if (growth === 0n) continue;
      for (const quota of namespace.quotas) {
        if (quota.volumeAttributesClasses) continue; // counts claims of its classes only: plan-volume-attributes.ts
        for (const [resource, limit] of Object.entries(quota.hard)) {
          const className = resource.endsWith(classQuotaSuffix) ? resource.slice(0, -classQuotaSuffix.length) : undefined;
          if (resource !== 'requests.storage' && className === undefined) continue;
          if (className !== undefined && className !== template.storageClassName) continue;
          const counted = namespace.pvcs.filter((p) => className === undefined || p.storageClassName === className);
          const key = `${sts.namespace}|${quota.name}|${resource}`;
          const usedBefore = counted.reduce((sum, p) => sum + quotaUsageOf(p), 0n) + (grown.get(key) ?? 0n);
          template.quotaChecks.push({ quotaName: quota.name, resource, limit: limit.bytes, usedBefore, growth });
          if (usedBefore + growth > limit.bytes) {
            const show = (bytes: bigint): string => showSize(formatBytesLike(bytes, template.to));
            template.reasons.push({
              code: 'quota-exceeded',
              message: `growing needs ${show(growth)} more ${resource} but ResourceQuota ${quota.name} has `
                + `${show(maxBig(0n, limit.bytes - usedBefore))} left (used ${show(usedBefore)} `
                + `of ${show(limit.bytes)}, counting max(request, allocatedResources))`,
            });
            template.action = 'blocked';
          }
        }
      }
      if (template.action === 'resize') {
        for (const check of template.quotaChecks) {
          const key = `${sts.namespace}|${check.quotaName}|${check.resource}`;
          grown.set(key, (grown.get(key) ?? 0n) + growth);
        }
      }
    }
  }
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}