// The Events a pass records on a StatefulSet for its templates, as `kubectl describe statefulset` and `kubectl get
// events` show them: what a template update changed, and a change finished. Each names what changed (the size, the
// VolumeAttributesClass, or both), so a class change never reads as a resize. Pure.
import { compareQuantities } from '../../domain/quantity.ts';
import type { TemplatePlan } from '../plan/plan-types.ts';
import type { TemplateStatus } from './template-status.ts';

export interface StatefulSetEvent {
  reason: string;
  message: string;
}

/** What a template update changes of one template: its size, its class, or both (what is unchanged is left out). */
export interface TemplateUpdateChange {
  templateName: string;
  size?: string;
  className?: string;
}

/** What updating the live template to `plan` changes: the size when it differs, the class when it does. */
export function templateUpdateChange(plan: TemplatePlan): TemplateUpdateChange {
  const sizeChanges = plan.from === undefined || compareQuantities(plan.from, plan.to) !== 0;
  const klass = plan.volumeAttributesClass;
  const classChanges = klass?.to !== undefined && klass.from !== klass.to;
  return {
    templateName: plan.templateName,
    ...(sizeChanges || !classChanges ? { size: plan.desired.storageText } : {}),
    ...(classChanges ? { className: klass.to } : {}),
  };
}

/** `data -> 60Gi`, `data -> VolumeAttributesClass fast`, `data -> 60Gi and VolumeAttributesClass fast`. */
export function templateChangeWords(change: TemplateUpdateChange): string {
  const parts = [change.size, change.className === undefined ? undefined : `VolumeAttributesClass ${change.className}`];
  return `${change.templateName} -> ${parts.filter((p): p is string => p !== undefined).join(' and ')}`;
}

/** `UpdatedVolumeClaimTemplates`: the live set's templates set to Git's, from which commit. */
export function templatesUpdatedEvent(changes: readonly TemplateUpdateChange[], commitSha: string): StatefulSetEvent {
  return {
    reason: 'UpdatedVolumeClaimTemplates',
    message: `volumeClaimTemplates ${changes.map(templateChangeWords).join(', ')} from commit ${commitSha.slice(0, 12)}`,
  };
}

/**
 * A template's change finished: `VolumeClaimTemplateResized` (`all 2 PVCs of data reached 50Gi`, with the class when
 * it changed too) or, for a class change alone, `VolumeClaimTemplateClassChanged` (`all 2 PVCs of data are in
 * VolumeAttributesClass fast`).
 */
export function templateFinishedEvent(status: TemplateStatus): StatefulSetEvent {
  const claims = status.replicas === 1 ? `the PVC of ${status.templateName}` : `all ${status.replicas} PVCs of ${status.templateName}`;
  const klass = status.desiredClass === undefined ? undefined : `VolumeAttributesClass ${status.desiredClass}`;
  if (status.change === 'class' && klass !== undefined) return { reason: 'VolumeClaimTemplateClassChanged', message: `${claims} ${status.replicas === 1 ? 'is' : 'are'} in ${klass}` };
  return { reason: 'VolumeClaimTemplateResized', message: `${claims} reached ${status.desiredSize}${status.change === 'size-and-class' && klass ? ` in ${klass}` : ''}` };
}
