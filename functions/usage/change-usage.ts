// Usage before merge (issue 36 item 4): for each template a pull request resizes, each replica's volume as the kubelet
// reports it now, and how full it is at the new size ("data-pg-0: 8.1Gi of 10Gi used (81%) -> 41% at 20Gi"). Pure: the
// read is made once per validation run (feedback/validate-pull-requests.ts), for the namespaces of every change in it.
import { reportedQuantity } from '../domain/quantity.ts';
import type { UsageReadFailure } from '../domain/volume-usage.ts';
import type { StatefulSetReport, TemplateReport } from '../engine/report/pass-report.ts';
import { gib, percent } from '../domain/spelling.ts';
import { usedPercentAt } from './growth-size.ts';
import { claimKey, type UsageReading } from './read-volume-usage.ts';
import { replicaUsageOf } from './template-usage.ts';

export interface ReplicaUsageAfter {
  claim: string;
  usedBytes: number;
  /** The kubelet's capacity (the file system's), which the percentages are of. */
  capacityBytes: number;
  usedPercent: number;
  /** Used share of the file system once the volume has the new size (grown in proportion). */
  afterPercent: number;
}

export interface TemplateUsageAfter {
  namespace: string;
  statefulSet: string;
  template: string;
  /** The size the change gives the volumes. */
  to: string;
  replicas: ReplicaUsageAfter[];
  /** Replicas whose claim has no series (its pod is not running, or Prometheus has not scraped it). */
  unread: string[];
}

/** What a check says of usage: each resized template's replicas, or why usage could not be read (never a verdict). */
export type ChangeUsage =
  | { outcome: 'read'; templates: TemplateUsageAfter[] }
  | { outcome: 'unread'; source: string; failure: UsageReadFailure };

/** A template change that grows its volumes (a class change alone changes no size). */
function resizesVolumes(template: TemplateReport): boolean {
  return template.action === 'resize' && template.change !== 'class';
}

/** The namespaces whose volumes a set of plans resizes: what one read must cover. */
export function namespacesResized(plans: ReadonlyArray<readonly StatefulSetReport[]>): string[] {
  const namespaces = new Set<string>();
  for (const sets of plans) for (const sts of sets) if (sts.templates.some(resizesVolumes)) namespaces.add(sts.namespace);
  return [...namespaces].sort();
}

const bytesOf = (text: string | undefined): bigint | undefined => reportedQuantity(text)?.bytes;

/** Each resized template's replicas now and at the new size, from one read; undefined when the plan resizes nothing. */
export function changeUsageOf(statefulSets: readonly StatefulSetReport[], reading: UsageReading, source: string): ChangeUsage | undefined {
  const resized = statefulSets.flatMap((sts) => sts.templates.filter(resizesVolumes).map((template) => ({ sts, template })));
  if (resized.length === 0) return undefined;
  if (!reading.ok) return { outcome: 'unread', source, failure: reading.failure };
  const templates = resized.map(({ sts, template }): TemplateUsageAfter => {
    const to = bytesOf(template.desiredSize);
    const replicas: ReplicaUsageAfter[] = [];
    const unread: string[] = [];
    for (const pvc of template.pvcs) {
      const claim = reading.claims.get(claimKey(sts.namespace, pvc.name));
      // The file system grows with the volume: from its size now (its capacity, else the live template's) to the new one.
      const current = bytesOf(pvc.capacity) ?? bytesOf(template.from);
      if (!claim || to === undefined || current === undefined || current <= 0n) {
        unread.push(pvc.name);
        continue;
      }
      const replica = replicaUsageOf(pvc.name, pvc.ordinal, claim);
      replicas.push({
        claim: pvc.name, usedBytes: replica.usedBytes, capacityBytes: replica.capacityBytes, usedPercent: replica.usedPercent,
        afterPercent: usedPercentAt(replica, current, to),
      });
    }
    return { namespace: sts.namespace, statefulSet: sts.name, template: template.templateName, to: template.desiredSize, replicas, unread };
  });
  return { outcome: 'read', templates };
}

/** `data-pg-0: 8.1Gi of 10Gi used (81%) → 41% at 20Gi`. */
export function replicaUsageWords(replica: ReplicaUsageAfter, to: string, arrow: string): string {
  return `${replica.claim}: ${gib(replica.usedBytes)} of ${gib(replica.capacityBytes)} used (${percent(replica.usedPercent)}) ${arrow} ${percent(replica.afterPercent)} at ${to}`;
}

/** The line a check carries when usage could not be read: the verdict does not depend on it. */
export function usageUnreadWords(usage: Extract<ChangeUsage, { outcome: 'unread' }>): string {
  return `usage could not be read from ${usage.source}: ${usage.failure.message}; the verdict does not depend on it`;
}
