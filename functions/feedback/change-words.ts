// How a change is named to people: a resize, a class change (KEP-3751 VolumeAttributesClass) or both, from what each
// template's change alters (TemplateStatus.change). Shared by the progress comment and status, the plan comment and
// the check's annotations. Pure.
import type { TemplateReport } from '../engine/report/pass-report.ts';
import type { TemplateChange } from '../engine/report/template-status.ts';

export interface ChangeKind {
  size: boolean;
  class: boolean;
}

/** What the templates' changes alter together; a template whose change is not known counts as a resize. */
export function changeKind(templates: ReadonlyArray<Pick<TemplateReport, 'change'>>): ChangeKind {
  const known = templates.map((t) => t.change).filter((c): c is TemplateChange => c !== undefined);
  if (known.length === 0) return { size: true, class: false };
  return { size: known.some((c) => c !== 'class'), class: known.some((c) => c !== 'size') };
}

/** `Volume resize`, `Volume class change`, `Volume resize and class change`. */
export function changeTitle(kind: ChangeKind): string {
  return kind.size && kind.class ? 'Volume resize and class change' : kind.class ? 'Volume class change' : 'Volume resize';
}

/** `resizing`, `changing class`, `resizing and changing class`. */
export function changeVerb(kind: ChangeKind): string {
  return kind.size && kind.class ? 'resizing and changing class' : kind.class ? 'changing class' : 'resizing';
}

/** `will resize`, `will change class`, `will resize and change class`. */
export function willChange(change: TemplateChange | undefined): string {
  return change === 'class' ? 'will change class' : change === 'size-and-class' ? 'will resize and change class' : 'will resize';
}

/** The same for what several templates' changes alter together (a StatefulSet's line in a plan). */
export function willChangeKind(kind: ChangeKind): string {
  return willChange(kind.size && kind.class ? 'size-and-class' : kind.class ? 'class' : 'size');
}

/**
 * Where a template is going: `50Gi`, `50Gi in VolumeAttributesClass fast`, or the class alone when the size does not
 * change (`text` escapes the values for Markdown).
 */
export function goingTo(template: Pick<TemplateReport, 'desiredSize' | 'desiredClass' | 'change'>, text: (value: string) => string): string {
  const klass = template.desiredClass !== undefined ? `VolumeAttributesClass ${text(template.desiredClass)}` : undefined;
  if (template.change === 'class' && klass !== undefined) return klass;
  return `${text(template.desiredSize)}${klass !== undefined ? ` in ${klass}` : ''}`;
}

/** `1/3 replicas at 20Gi`, `0/2 replicas in fast` (a class change alone), `0/2 replicas at 20Gi in fast`. */
export function replicasAt(template: Pick<TemplateReport, 'readyReplicas' | 'replicas' | 'desiredSize' | 'desiredClass' | 'change'>): string {
  const count = `${template.readyReplicas}/${template.replicas} replicas`;
  if (template.change === 'class' && template.desiredClass !== undefined) return `${count} in ${template.desiredClass}`;
  return `${count} at ${template.desiredSize}${template.desiredClass !== undefined ? ` in ${template.desiredClass}` : ''}`;
}
