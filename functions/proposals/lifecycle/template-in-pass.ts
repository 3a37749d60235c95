// What a pass says of the template an open proposal is about, for its kind's `resolution`: the template's report, or
// that it is gone from Git (only on a complete pass over manifests that all read cleanly), or nothing (a set the pass
// did not look into: out of time, absent from the cluster, a manifest error somewhere). Pure.
import type { PassReport, TemplateReport } from '../../engine/report/pass-report.ts';
import type { TemplateRef } from './identity.ts';

export type TemplateInPass = { template: TemplateReport } | 'gone' | 'unknown';

export function templateInPass(report: PassReport, ref: TemplateRef): TemplateInPass {
  const sts = report.statefulSets.find((s) => s.namespace === ref.namespace && s.name === ref.statefulSet);
  const template = sts?.templates.find((t) => t.templateName === ref.template);
  if (template) return { template };
  const everythingRead = report.outcome === 'ok' && report.manifestErrors.length === 0;
  // A set the pass found in Git but did not look into (out of time, absent from the cluster) says nothing of its templates.
  const evaluated = sts === undefined || (sts.outcome !== 'not-started' && sts.outcome !== 'missing-in-cluster');
  return everythingRead && evaluated ? 'gone' : 'unknown';
}
