// Volumes near full (pure): each volume read whose bytes or inodes are at or above the growth threshold its set is held
// to (a set's own `growth-used-percent`, else the target's). What the dashboard counts per target, whether or not a
// growth pull request can follow (a set at its max, growth off by annotation).
import type { ReplicaUsage, TemplateUsage } from '../domain/volume-usage.ts';

export function isNearFull(replica: ReplicaUsage, usedPercent: number): boolean {
  return replica.usedPercent >= usedPercent || (replica.inodesPercent !== undefined && replica.inodesPercent >= usedPercent);
}

export function volumesNearFull(templates: ReadonlyArray<{ usage: TemplateUsage; usedPercent: number }>): number {
  return templates.reduce((sum, { usage, usedPercent }) => sum + usage.replicas.filter((r) => isNearFull(r, usedPercent)).length, 0);
}
