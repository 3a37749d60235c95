// Template reports built the way a pass builds them (describeTemplatePvcs, withNodeWaits, summariseTemplate,
// templateReport, outcomeOf) over claims and Events real CSI sidecars recorded (test/support/csi-recordings.ts).
import type { LivePod, LivePvc, PvcEvent } from '../../functions/domain/live-state.ts';
import { withNodeWaits, type NodeWaitPolicy } from '../../functions/engine/volumes/node-expansion.ts';
import { describeTemplatePvcs, outcomeOf, templateReport, type StatefulSetReport, type TemplateReport } from '../../functions/engine/report/pass-report.ts';
import type { TemplatePlan } from '../../functions/engine/plan/plan-types.ts';
import { summariseTemplate, type TemplateStatus } from '../../functions/engine/report/template-status.ts';
import { liveSet, templatePlan } from '../engine/builders.ts';
import { renamed } from './csi-recordings.ts';

/** The StatefulSet `csi-probe/web` of `replicas` whose claims `data-web-N` are each `recorded`, renamed. */
export function recordedTemplate(args: {
  recorded: LivePvc; replicas?: number; size: string; className?: string; events?: readonly PvcEvent[]; plan?: Partial<TemplatePlan>;
  nodeWaits?: NodeWaitPolicy; pods?: readonly LivePod[]; previous?: readonly TemplateStatus[]; now?: Date;
}): { template: TemplateReport; sts: StatefulSetReport } {
  const replicas = args.replicas ?? 2;
  const live = liveSet({ name: 'web', namespace: 'csi-probe', replicas });
  const pvcs = Array.from({ length: replicas }, (_, i) => renamed(args.recorded, `data-web-${i}`));
  // The live set has the template (a template it lacks lists no PVCs: see describeTemplatePvcs).
  const plan = templatePlan(pvcs, { size: args.size, live: live.templates[0], ...(args.className !== undefined ? { className: args.className } : {}), ...args.plan });
  const progress = withNodeWaits(describeTemplatePvcs(plan, live), live, args.nodeWaits, args.pods);
  const status = summariseTemplate(plan, progress, live, 'c'.repeat(40), args.previous ?? [], args.now);
  const template = templateReport(plan, status, progress, args.events ?? []);
  const outcome = outcomeOf([template], { progress: new Map(), patched: [], failures: [], stoppedByTransientError: false });
  const sts: StatefulSetReport = {
    namespace: 'csi-probe', name: 'web', outcome, podManagementPolicy: 'OrderedReady', replicas, templateUpdate: undefined, templates: [template], notes: [],
  };
  return { template, sts };
}

/** Recorded Events of one claim, as if its replica `data-web-N` had them. */
export function eventsOf(events: readonly PvcEvent[], ...replicas: number[]): PvcEvent[] {
  return replicas.flatMap((i) => events.map((e) => ({ ...e, pvcName: `data-web-${i}` })));
}
