// The storage backend's own limit on modifying a volume, as AWS EBS enforces it since 15 January 2026 (the ModifyVolume
// API reference): up to four modifications of a volume within a rolling 24 hours, and none until the previous one has
// completed. Both the resizer's ControllerExpandVolume and the modifier's ControllerModifyVolume go through it, as both
// end in one EC2 ModifyVolume call in aws-ebs-csi-driver; requests for one volume arriving together are coalesced into
// one call by that driver (its modify-volume-request-handler-timeout, 2s by default), so they count once here too.
//
// The refusals, as aws-ebs-csi-driver passes EC2's answer on (the SDK's text quoting EC2's error code and message):
// - over the limit: `api error VolumeModificationRateExceeded: You've reached the maximum modification rate per volume
//   limit.` Code and first sentence are recorded (VolumeResizeFailed Events of a real cluster; the same words in
//   sodafoundation/strato#1094). Under the old rule a second sentence followed, "Wait at least 6 hours between
//   modifications per EBS volume."; AWS documents that the message now "indicates when you can perform your next
//   modification", but no recording of the new words was found: the second sentence here is ours, and the tool
//   matches only on the code (engine/volumes/pvc-progress.ts refusedWithinWindow).
// - under way: `api error IncorrectModificationState: Volume vol-... cannot be modified in modification state
//   OPTIMIZING`, quoted from a real cluster's VolumeResizeFailed Event in kubernetes/kubernetes#69434 (the SDK v1
//   form; the driver's SDK v2 prints `api error` before the code).
import type { KubeObject } from '../store.ts';
import type { RpcError } from './csi-driver.ts';
import type { DriverProfile, World } from './world.ts';

type Json = Record<string, unknown>;

/** aws-ebs-csi-driver's default modify-volume-request-handler-timeout: requests for a volume within it become one call. */
const coalescingMs = 2_000;

/** Whether the backend takes a modification of the volume now: records it and says nothing, or its refusal's words. */
export function backendModification(world: World, pv: Readonly<KubeObject>, driver: DriverProfile, rpc: 'expand' | 'modify'): RpcError | undefined {
  const { modificationLimit: limit, optimizingMs } = driver;
  if (limit === undefined && optimizingMs <= 0) return undefined;
  const name = pv.metadata.name ?? '';
  const now = world.now().getTime();
  const accepted = world.sidecars.volumeModifications.get(name) ?? [];
  const last = accepted.at(-1);
  if (last !== undefined && now - last < coalescingMs) return undefined;
  const handle = volumeHandleOf(pv);
  if (last !== undefined && now - last < optimizingMs) {
    return refusal(world, rpc, handle, `IncorrectModificationState: Volume ${handle} cannot be modified in modification state OPTIMIZING`);
  }
  const recent = limit === undefined ? [] : accepted.filter((t) => now - t < limit.perMs);
  if (limit !== undefined && recent.length >= limit.count) {
    const next = new Date((recent[recent.length - limit.count] ?? now) + limit.perMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return refusal(world, rpc, handle, `VolumeModificationRateExceeded: You've reached the maximum modification rate per volume limit. You can modify this volume again after ${next}.`);
  }
  // Only what can still hold a modification back is kept: the window's times, and the last (it may be optimizing).
  world.sidecars.volumeModifications.set(name, [...recent, now]);
  return undefined;
}

/** The driver's wrapping of EC2's refusal: ControllerExpandVolume's around ModifyVolume's, with code Internal (retried). */
function refusal(world: World, rpc: 'expand' | 'modify', handle: string, answer: string): RpcError {
  const requestId = [8, 4, 4, 4, 12].map((length) => Array.from({ length }, () => Math.floor(world.random() * 16).toString(16)).join('')).join('-');
  const modify = `Could not modify volume "${handle}": operation error EC2: ModifyVolume, https response error StatusCode: 400, RequestID: ${requestId}, api error ${answer}`;
  return { code: 'Internal', desc: rpc === 'expand' ? `Could not resize volume "${handle}": rpc error: code = Internal desc = ${modify}` : modify };
}

function volumeHandleOf(pv: Readonly<KubeObject>): string {
  const handle = (pv.spec?.csi as Json | undefined)?.volumeHandle;
  return typeof handle === 'string' ? handle : pv.metadata.name ?? '';
}
