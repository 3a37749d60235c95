// kube-controller-manager's expand controller: a bound claim asking for more than its capacity, in a class that
// allows expansion, is a CSI volume's to grow, so it only says it waits for the external resizer (resizer.ts), once
// per requested size.
import { sandboxBytesOf } from '../quantity.ts';
import { mustResourceType } from '../store.ts';
import { recordEvent } from './events.ts';
import type { World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');

type Json = Record<string, unknown>;

export function noticeExpansions(world: World): void {
  const { store } = world;
  for (const pvc of store.peekList(pvcType)) {
    if (pvc.status?.phase !== 'Bound' || pvc.metadata.deletionTimestamp) continue;
    const requested = ((pvc.spec?.resources as Json | undefined)?.requests as Json | undefined)?.storage;
    const request = sandboxBytesOf(requested);
    const capacity = sandboxBytesOf((pvc.status.capacity as Json | undefined)?.storage);
    const uid = pvc.metadata.uid ?? '';
    if (request === undefined || capacity === undefined || request <= capacity) continue;
    const className = pvc.spec?.storageClassName;
    const storageClass = typeof className === 'string' ? store.peek(storageClassType, undefined, className) : undefined;
    if (storageClass?.allowVolumeExpansion !== true || world.expansionsNoticed.get(uid) === request) continue;
    world.expansionsNoticed.set(uid, request);
    recordEvent(world, pvc, 'Normal', 'ExternalExpanding', 'waiting for an external controller to expand this PVC', 'volume_expand');
  }
}
