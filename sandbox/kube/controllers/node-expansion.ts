// The kubelet's node expansion (pkg/volume/util/operationexecutor/node_expander.go and resize_util.go, with
// RecoverVolumeExpansionFailure), as a real kubelet v1.34.9 did it (../shared/conformance/node-v1.34.9/): a claim the
// resizer left NodeResizePending is grown on the node at the next sync of the running pod that mounts it (kubelet.ts:
// when it starts, then every --sync-frequency; for an offline driver, only in a pod started after the controller
// step), never by restarting it: NodeResizeInProgress (the resizer's Resizing and FileSystemResizePending kept), then
// NodeExpandVolume to the PV's size over the driver's ticksPerPhase; done, the claim's capacity is the PV's, its
// storage status is gone and so are the resize conditions (others, such as ModifyingVolume, stay), and
// FileSystemResizeSuccessful "MountVolume.NodeExpandVolume succeeded for volume "<pv>" <node>" is recorded by the
// kubelet of that node on the pod and on the claim. A final error marks NodeResizeError (retried), an infeasible one
// NodeResizeInfeasible too, which the resizer at once turns back into NodeResizePending for another try (its "case
// 3"), or moves to a lowered request (KEP-1790); those are taken from the kubelet's source, not recorded.
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

/** `synced`: the uids of the pods the kubelet syncs this tick (kubelet.ts syncPods). */
export function expandOnNodes(world: World, synced: ReadonlySet<string>): void {
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
      // The kubelet notices the new size only when it syncs the pod; an expansion it began goes on between syncs.
      if (!synced.has(pod.metadata.uid ?? '')) continue;
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
      recordEvent(world, pvc, 'Warning', 'VolumeResizeFailed', `MountVolume.NodeExpandVolume failed for volume "${pv.metadata.name}": ${rpcErrorText(error)}`, 'kubelet', nodeOf(world, pod));
      continue;
    }
    // The claim is written first, then the Events (recorded: the claim's resourceVersions come before theirs).
    writeClaim(world, pvc, (claim) => {
      claim.status.capacity = { ...claim.status.capacity, storage: quantityOfBytes(size) };
      const statuses = { ...claim.status.allocatedResourceStatuses };
      delete statuses.storage;
      claim.status.allocatedResourceStatuses = statuses;
      claim.status.conditions = mergeResizeConditions(conditionsOf(pvc), [], false);
    });
    const node = nodeOf(world, pod);
    const message = `MountVolume.NodeExpandVolume succeeded for volume "${pv.metadata.name}" ${node}`;
    recordEvent(world, pod, 'Normal', 'FileSystemResizeSuccessful', message, 'kubelet', node);
    recordEvent(world, pvc, 'Normal', 'FileSystemResizeSuccessful', message, 'kubelet', node);
    world.sidecars.podsAtNodePending.delete(uid);
  }
}

/** The node the pod runs on, whose kubelet speaks. */
function nodeOf(world: World, pod: Readonly<KubeObject>): string {
  const name = pod.spec?.nodeName;
  return typeof name === 'string' && name !== '' ? name : world.kubelet.nodeName;
}

/** The pod mounting the claim, if any: the one an offline expansion must see restarted. */
export function podUsing(world: World, pvc: Readonly<KubeObject>): Readonly<KubeObject> | undefined {
  return world.store.peekList(podType, pvc.metadata.namespace).find((pod) =>
    ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>).some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name));
}
