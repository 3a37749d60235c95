// One deterministic tick of every simulated controller, in a fixed order.
import { refreshQuotaUsage } from '../admission.ts';
import { collectGarbage } from './garbage-collector.ts';
import { startPods } from './kubelet.ts';
import { provisionVolumes } from './provisioner.ts';
import { resizeVolumes } from './resizer.ts';
import { reconcileStatefulSets } from './statefulset.ts';
import type { World } from './world.ts';

export type { World } from './world.ts';

export function runControllers(world: World): void {
  collectGarbage(world);
  reconcileStatefulSets(world);
  provisionVolumes(world);
  startPods(world);
  resizeVolumes(world);
  refreshQuotaUsage(world.store);
}
