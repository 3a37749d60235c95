// kube-controller-manager's expand controller (pkg/controller/volume/expand): a bound claim is looked at when first
// seen and whenever its request or its capacity grows; if it then asks for more than its capacity, its CSI volume is
// the external resizer's (resizer.ts) to grow, so it only says it waits for it. A lowered request (KEP-1790) is not
// looked at, so recovering from a failed expansion says nothing here.
import { sandboxBytesOf } from '../quantity.ts';
import { mustResourceType } from '../store.ts';
import { recordEvent } from './events.ts';
import type { World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

type Json = Record<string, unknown>;

export function noticeExpansions(world: World): void {
  const seen = world.sidecars.expansionSeen;
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase !== 'Bound' || pvc.metadata.deletionTimestamp) continue;
    const request = sandboxBytesOf(((pvc.spec?.resources as Json | undefined)?.requests as Json | undefined)?.storage) ?? 0n;
    const capacity = sandboxBytesOf((pvc.status.capacity as Json | undefined)?.storage) ?? 0n;
    const uid = pvc.metadata.uid ?? '';
    const last = seen.get(uid);
    seen.set(uid, { request, capacity });
    if (last !== undefined && request <= last.request && capacity <= last.capacity) continue;
    if (request > capacity) recordEvent(world, pvc, 'Normal', 'ExternalExpanding', 'waiting for an external controller to expand this PVC', 'volume_expand');
  }
}
