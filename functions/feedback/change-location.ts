// Where a template's change is written in Git, for the check's annotation and the comment's link: the class's line
// when only the class changes (a values file may map both, a manifest writes both), else the size's. Pure.
import type { TemplateReport } from '../engine/report/pass-report.ts';

type Located = Pick<TemplateReport, 'storageLocation' | 'classLocation' | 'volumeAttributesClass' | 'from' | 'desiredSize'>;

export function changeLocation(template: Located): { path: string; line: number; column: number } {
  const classOnly = template.volumeAttributesClass !== undefined && template.from === template.desiredSize;
  return classOnly && template.classLocation ? template.classLocation : template.storageLocation;
}
