// Which volumes are within their CSI driver's modification window (issue 36 item 5): AWS EBS accepts one modification
// per volume every six hours (domain/modification-cooldown.ts), so a change to a volume modified less than that ago
// would be refused by the backend. When a volume was last modified is read from what the cluster and this tool wrote:
// the time this tool patched it (the status annotation's `volumesModifiedAt`, written by the pass that patched it) and
// the claim's own resize and modification conditions (a change under way, by this tool or anyone). A volume grown by
// someone else and finished leaves neither: the driver's refusal says it then (pvc-progress.ts `waiting-for-window`).
// Pure.
import { modificationWindow } from '../domain/modification-cooldown.ts';
import type { ClusterSnapshot, LivePvc } from '../domain/live-state.ts';
import type { StatefulSetPlan, TemplatePlan, VolumeWindow } from './plan-types.ts';
import { statusAnnotation, type TemplateStatus } from './template-status.ts';

export type { VolumeWindow } from './plan-types.ts';

/** Conditions a claim carries while a modification the backend took is under way (external-resizer, KEP-1790/3751). */
const modificationConditions = new Set(['Resizing', 'FileSystemResizePending', 'ModifyingVolume']);

/** The status entries of a set: on the set, or on the PVC that carries them for a set its operator writes. */
function statusesOf(sts: StatefulSetPlan, template: TemplatePlan): TemplateStatus[] {
  const texts = [sts.live?.annotations[statusAnnotation], ...template.pvcs.map((p) => p.annotations?.[statusAnnotation])];
  return texts.flatMap((text) => {
    if (text === undefined) return [];
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? (parsed as TemplateStatus[]) : [];
    } catch {
      return [];
    }
  });
}

/** The latest time a volume is known to have been modified: this tool's patch, or a modification under way. */
export function lastModifiedAt(pvc: LivePvc, statuses: readonly TemplateStatus[], templateName: string): Date | undefined {
  const times = [
    ...statuses.filter((s) => s.templateName === templateName).map((s) => s.volumesModifiedAt?.[pvc.name]),
    ...pvc.conditions.filter((c) => modificationConditions.has(c.type) && c.status === 'True').map((c) => c.lastTransitionTime),
  ].flatMap((t) => (t === undefined || Number.isNaN(Date.parse(t)) ? [] : [Date.parse(t)]));
  return times.length === 0 ? undefined : new Date(Math.max(...times));
}

/** The template's volumes within their driver's window at `now` (the driver: its StorageClass's provisioner). */
export function modificationWindowsOf(
  sts: StatefulSetPlan, template: TemplatePlan, snapshot: ClusterSnapshot, now: Date, cooldowns?: Readonly<Record<string, number>>,
): VolumeWindow[] {
  const driver = snapshot.storageClasses.find((c) => c.name === template.storageClassName)?.provisioner;
  if (driver === undefined || template.pvcs.length === 0) return [];
  const statuses = statusesOf(sts, template);
  return template.pvcs.flatMap((pvc) => {
    const modifiedAt = lastModifiedAt(pvc, statuses, template.templateName);
    const window = modificationWindow(driver, modifiedAt, now, cooldowns);
    if (!window.within || !modifiedAt) return [];
    return [{ claim: pvc.name, driver, cooldownSeconds: window.cooldownSeconds, modifiedAt: modifiedAt.toISOString(), until: window.until.toISOString() }];
  });
}

/** Marks each live template's volumes within their window (a change to them waits; growth is not proposed for them). */
export function markModificationWindows(
  plans: readonly StatefulSetPlan[], snapshot: ClusterSnapshot, now: Date, cooldowns?: Readonly<Record<string, number>>,
): void {
  for (const sts of plans) {
    for (const template of sts.templates) {
      const windows = modificationWindowsOf(sts, template, snapshot, now, cooldowns);
      if (windows.length > 0) template.modificationWindows = windows;
    }
  }
}

/** `6h`, `30m`, `1h30m`: a cooldown as people write it. */
export function cooldownWords(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  return hours > 0 ? `${hours}h${minutes > 0 ? `${minutes}m` : ''}` : `${minutes}m`;
}

/** `waiting for the driver's window until 2026-11-28T14:00:00Z (ebs.csi.aws.com accepts one modification per volume every 6h; last modified 2026-11-28T08:00:00Z)`. */
export function windowWords(window: VolumeWindow): string {
  return `waiting for the driver's window until ${shortTime(window.until)} (${window.driver} accepts one modification per volume every `
    + `${cooldownWords(window.cooldownSeconds)}; last modified ${shortTime(window.modifiedAt)})`;
}

/** An ISO time without its milliseconds: `2026-11-28T14:00:00Z`. */
function shortTime(iso: string): string {
  return iso.replace(/\.\d{3}Z$/, 'Z');
}
