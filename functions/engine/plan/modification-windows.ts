// Which volumes are within their CSI driver's modification window (issue 36 item 5): AWS EBS accepts four modifications
// of a volume within any 24 hours, and none while one is under way (domain/modification-limit.ts), so a change to a
// volume that used them, or is being modified, would be refused by the backend. A volume's modifications are read
// from what this tool and the cluster wrote: the times this tool patched it (the status annotation's
// `volumesModifiedAt`, written by the pass that patched it), and a modification under way at the backend, by this tool
// or anyone: a controller expansion (`Resizing`) or a class change in progress (`modifyVolumeStatus` InProgress, not
// refused). `FileSystemResizePending` is none: the backend's part has returned (an offline expansion may stay there for
// days). Modifications by someone else, finished, leave no trace, nor does a volume still optimizing: the driver's
// refusal says it then (pvc-progress.ts `waiting-for-window`). Pure.
import { modificationWindow, type ModificationHistory, type ModificationLimit } from '../../domain/modification-limit.ts';
import type { ClusterSnapshot, LivePvc, PvcCondition } from '../../domain/live-state.ts';
import type { StatefulSetPlan, TemplatePlan, VolumeWindow } from './plan-types.ts';
import { modificationTimes, statusAnnotation, type TemplateStatus } from '../report/template-status.ts';

export type { VolumeWindow } from './plan-types.ts';

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

/** When this tool modified a volume (each time remembered), and whether a modification is under way on it now. */
export function modificationHistoryOf(pvc: LivePvc, statuses: readonly TemplateStatus[], templateName: string): ModificationHistory {
  const modifiedAt = [...new Set(statuses.filter((s) => s.templateName === templateName).flatMap((s) => modificationTimes(s.volumesModifiedAt?.[pvc.name])))]
    .flatMap((t) => (Number.isNaN(Date.parse(t)) ? [] : [new Date(t)]));
  const underWay = underWayOn(pvc);
  return underWay ? { modifiedAt, underWay } : { modifiedAt };
}

/** A modification under way at the backend (external-resizer, KEP-1790/3751), since when its condition says. */
function underWayOn(pvc: LivePvc): { since?: Date } | undefined {
  const holds = (type: string): PvcCondition | undefined => pvc.conditions.find((c) => c.type === type && c.status === 'True');
  // A class change the driver refused keeps ModifyingVolume ("failed. Waiting for retry.") beside ModifyVolumeError.
  const modifying = pvc.modifyVolumeStatus?.status === 'InProgress' && !holds('ModifyVolumeError');
  if (!holds('Resizing') && !modifying) return undefined;
  const since = (holds('Resizing') ?? holds('ModifyingVolume'))?.lastTransitionTime;
  return since === undefined || Number.isNaN(Date.parse(since)) ? {} : { since: new Date(since) };
}

/** The template's volumes within their driver's window at `now` (the driver: its StorageClass's provisioner). */
export function modificationWindowsOf(
  sts: StatefulSetPlan, template: TemplatePlan, snapshot: ClusterSnapshot, now: Date, limits?: Readonly<Record<string, ModificationLimit>>,
): VolumeWindow[] {
  const driver = snapshot.storageClasses.find((c) => c.name === template.storageClassName)?.provisioner;
  if (driver === undefined || template.pvcs.length === 0) return [];
  const statuses = statusesOf(sts, template);
  return template.pvcs.flatMap((pvc): VolumeWindow[] => {
    const window = modificationWindow(driver, modificationHistoryOf(pvc, statuses, template.templateName), now, limits);
    if (!window.within) return [];
    if (window.reason === 'under-way') {
      return [{ claim: pvc.name, driver, limit: window.limit, reason: 'under-way', ...(window.since ? { since: window.since.toISOString() } : {}) }];
    }
    return [{ claim: pvc.name, driver, limit: window.limit, reason: 'limit', modifiedAt: window.modifiedAt.map((t) => t.toISOString()), until: window.until.toISOString() }];
  });
}

/** Marks each live template's volumes within their window (a change to them waits; growth is not proposed for them). */
export function markModificationWindows(
  plans: readonly StatefulSetPlan[], snapshot: ClusterSnapshot, now: Date, limits?: Readonly<Record<string, ModificationLimit>>,
): void {
  for (const sts of plans) {
    for (const template of sts.templates) {
      const windows = modificationWindowsOf(sts, template, snapshot, now, limits);
      if (windows.length > 0) template.modificationWindows = windows;
    }
  }
}
