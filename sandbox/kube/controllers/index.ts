// One deterministic tick of the simulated controllers, in a fixed order. A sandbox may run only some of them: a real
// cluster without a CSI driver has no provisioner or resizer, and the conformance replay plays exactly such a cluster.
import { refreshQuotaUsage } from '../admission.ts';
import { collectGarbage } from './garbage-collector.ts';
import { startPods, syncPods } from './kubelet.ts';
import { expandOnNodes } from './node-expansion.ts';
import { finalizeNamespaces } from './namespace.ts';
import { provisionVolumes } from './provisioner.ts';
import { resizeVolumes } from './resizer.ts';
import { modifyVolumes } from './volume-modifier.ts';
import { ensureDefaultServiceAccounts } from './service-accounts.ts';
import { reconcileStatefulSets } from './statefulset.ts';
import { protectVolumes } from './volume-protection.ts';
import { bindVolumes } from './persistent-volume-binder.ts';
import { noticeExpansions } from './volume-expand.ts';
import type { World } from './world.ts';

export type { World } from './world.ts';

export const controllerNames = ['namespace', 'serviceaccount', 'garbage-collector', 'volume-protection', 'statefulset', 'provisioner', 'persistentvolume-binder', 'kubelet', 'volume-expand', 'resizer', 'resourcequota'] as const;
export type ControllerName = typeof controllerNames[number];

const controllers: Record<ControllerName, (world: World) => void> = {
  namespace: finalizeNamespaces,
  serviceaccount: ensureDefaultServiceAccounts,
  'garbage-collector': collectGarbage,
  'volume-protection': protectVolumes,
  statefulset: reconcileStatefulSets,
  provisioner: provisionVolumes,
  // Runs only where the version's cluster runs it (v1.34; the recorded v1.26.5 cluster had none).
  'persistentvolume-binder': bindVolumes,
  'volume-expand': noticeExpansions,
  // The kubelet starts pods and, at each pod's sync, finishes the node step of its volumes' expansion.
  kubelet: (world) => {
    expandOnNodes(world, syncPods(world, startPods(world)));
  },
  // The external-resizer both expands volumes and modifies their attributes (VolumeAttributesClass).
  resizer: (world) => {
    resizeVolumes(world);
    modifyVolumes(world);
  },
  resourcequota: (world) => refreshQuotaUsage(world.store),
};

/**
 * The order of one tick. The PV controller runs on both sides of the provisioner: it hands a new claim to the
 * provisioner, which creates its volume, which it then binds, as a real cluster does within a second.
 */
const tickOrder: readonly ControllerName[] = [
  'namespace', 'serviceaccount', 'garbage-collector', 'volume-protection', 'statefulset', 'persistentvolume-binder', 'provisioner',
  'persistentvolume-binder', 'kubelet', 'volume-expand', 'resizer', 'resourcequota',
];

export function runControllers(world: World, only: ReadonlySet<ControllerName> = new Set(controllerNames)): void {
  for (const name of tickOrder) if (only.has(name)) controllers[name](world);
}
