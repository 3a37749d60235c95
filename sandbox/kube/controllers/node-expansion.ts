// The kubelet's node expansion (pkg/volume/util/operationexecutor/node_expander.go and resize_util.go, with
// RecoverVolumeExpansionFailure): a claim the resizer left NodeResizePending is grown on the node once a pod using it
// runs (for an offline driver, a pod started after the controller step): NodeResizeInProgress, then NodeExpandVolume to
// the PV's size over the driver's ticksPerPhase; done, the claim's capacity is the PV's, its storage status is gone and
// so are the resize conditions (others, such as ModifyingVolume, stay). A final error marks NodeResizeError (retried),
// an infeasible one NodeResizeInfeasible too, which the resizer at once turns back into NodeResizePending for another
// try (its "case 3"), or moves to a lowered request (KEP-1790). Not recorded: the recorded cluster ran no kubelet.
import { quantityOfBytes, sandboxBytesOf } from '../quantity.ts';
import { mustResourceType, type KubeObject } from '../store.ts';
import { conditionsOf, conditionTime, mergeResizeConditions, mergeResizeConditionsOnNode, writeClaim } from './claim-status.ts';
import { nodeExpandVolume, rpcErrorText } from './csi-driver.ts';
import { recordEvent } from './events.ts';
import { isRunningAndReady } from './statefulset.ts';
import { driverNamed, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const podType = mustResourceType('v1', 'Pod');

type Json = Record<string, unknown>;

export function expandOnNodes(world: World): void {
  for (const pvc of world.store.peekList(pvcType)) {
    const uid = pvc.metadata.uid ?? '';
    const resizeStatus = (pvc.status?.allocatedResourceStatuses as Json | undefined)?.storage;
    if (pvc.metadata.deletionTimestamp || (resizeStatus !== 'NodeResizePending' && resizeStatus !== 'NodeResizeInProgress')) continue;
    const pv = typeof pvc.spec?.volumeName === 'string' ? world.store.peek(pvType, undefined, pvc.spec.volumeName) : undefined;
    const driver = driverNamed(world, (pv?.spec?.csi as Json | undefined)?.driver);
    const size = sandboxBytesOf((pv?.spec?.capacity as Json | undefined)?.storage);
    if (!pv || !driver || size === undefined) continue;
    const pod = podUsing(world, pvc);
    // Offline expansion finishes only in a pod started after the controller step: the resizer noted the pod running
    // then (a claim made pending otherwise, as seeded, counts the pod found now).
    if (!world.sidecars.podsAtNodePending.has(uid)) world.sidecars.podsAtNodePending.set(uid, pod?.metadata.uid ?? '');
    if (!pod || !isRunningAndReady(pod)) continue;
    if (driver.nodeExpansion === 'offline' && pod.metadata.uid === world.sidecars.podsAtNodePending.get(uid)) continue;
    if (resizeStatus === 'NodeResizePending') {
      writeClaim(world, pvc, (claim) => {
        claim.status.allocatedResourceStatuses = { ...claim.status.allocatedResourceStatuses, storage: 'NodeResizeInProgress' };
      });
      continue;
    }
    const ticks = (world.sidecars.nodeExpansionTicks.get(uid) ?? 0) + 1;
    if (ticks < driver.ticksPerPhase) {
      world.sidecars.nodeExpansionTicks.set(uid, ticks);
      continue;
    }
    world.sidecars.nodeExpansionTicks.delete(uid);
    const error = nodeExpandVolume(driver, size, driver.transientErrorRate > 0 && world.random() < driver.transientErrorRate);
    if (error) {
      const condition = { type: 'NodeResizeError', status: 'True', lastProbeTime: null, lastTransitionTime: conditionTime(world), message: `failed to expand pvc with ${rpcErrorText(error)}` };
      // Infeasible: the driver said so, or the claim now asks for another size (the resizer then moves to it).
      const request = sandboxBytesOf(((pvc.spec?.resources as Json | undefined)?.requests as Json | undefined)?.storage);
      const infeasible = error.code === 'OutOfRange' || error.code === 'InvalidArgument' || request !== size;
      writeClaim(world, pvc, (claim) => {
        if (infeasible) claim.status.allocatedResourceStatuses = { ...claim.status.allocatedResourceStatuses, storage: 'NodeResizeInfeasible' };
        claim.status.conditions = mergeResizeConditionsOnNode(conditionsOf(pvc), [condition], true);
      });
      recordEvent(world, pvc, 'Warning', 'VolumeResizeFailed', `MountVolume.NodeExpandVolume failed for volume "${pv.metadata.name}": ${rpcErrorText(error)}`, 'kubelet');
      continue;
    }
    const message = `MountVolume.NodeExpandVolume succeeded for volume "${pv.metadata.name}"`;
    recordEvent(world, pod, 'Normal', 'FileSystemResizeSuccessful', message, 'kubelet');
    recordEvent(world, pvc, 'Normal', 'FileSystemResizeSuccessful', message, 'kubelet');
    writeClaim(world, pvc, (claim) => {
      claim.status.capacity = { ...claim.status.capacity, storage: quantityOfBytes(size) };
      const statuses = { ...claim.status.allocatedResourceStatuses };
      delete statuses.storage;
      claim.status.allocatedResourceStatuses = statuses;
      claim.status.conditions = mergeResizeConditions(conditionsOf(pvc), [], false);
    });
    world.sidecars.podsAtNodePending.delete(uid);
  }
}

/** The pod mounting the claim, if any: the one an offline expansion must see restarted. */
export function podUsing(world: World, pvc: Readonly<KubeObject>): Readonly<KubeObject> | undefined {
  return world.store.peekList(podType, pvc.metadata.namespace).find((pod) =>
    ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>).some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name));
}
