// Where a StatefulSet's status annotation (template-status.ts) is kept: on the set itself, or, for a set its operator
// writes (engine/plan/controller-owner.ts), on a PVC of its own, since this tool never writes such a set.
import type { LiveStatefulSet } from '../../domain/live-state.ts';
import type { PassContext } from '../pass-context.ts';
import { pvcName, type StatefulSetPlan } from '../plan/plan.ts';
import { statusAnnotation } from './template-status.ts';

/** Where a set's status annotation is kept, and how this pass rewrites it. */
export interface StatusCarrier {
  annotations: Record<string, string>;
  write(value: string): Promise<void>;
}

/**
 * On the set itself; for a set an operator writes (declared), on its first template's replica-0 PVC, since the set
 * is never written here; none for a set another controller owns undeclared (blocked: nothing is written).
 */
export function statusCarrier(ctx: PassContext, plan: StatefulSetPlan, live: LiveStatefulSet): StatusCarrier | undefined {
  if (live.controllerOwner === undefined) {
    const carrier: StatusCarrier = {
      annotations: live.annotations,
      write: async (value) => {
        await ctx.cluster.annotateStatefulSet(live.namespace, live.name, statusAnnotation, value);
        carrier.annotations = { ...carrier.annotations, [statusAnnotation]: value };
      },
    };
    return carrier;
  }
  const [first] = plan.templates;
  const pvc = first && plan.templateOwner ? first.pvcs.find((p) => p.name === pvcName(first.templateName, live.name, 0)) : undefined;
  if (!pvc) return undefined;
  const carrier: StatusCarrier = {
    annotations: pvc.annotations ?? {},
    write: async (value) => {
      const resourceVersion = await ctx.cluster.annotatePvc(pvc.namespace, pvc.name, statusAnnotation, value);
      carrier.annotations = { ...carrier.annotations, [statusAnnotation]: value };
      // The storage patch is made on the resourceVersion read: this write's is now the current one.
      for (const template of plan.templates) {
        template.pvcs = template.pvcs.map((p) => (p.name === pvc.name ? { ...p, resourceVersion, annotations: carrier.annotations } : p));
      }
    },
  };
  return carrier;
}
