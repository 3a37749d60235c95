// The external-resizer's modify controller (v2.0.0 pkg/modifycontroller, KEP-3751), held to what it wrote in front of
// a real v1.34.9 server (test/conformance/csi): a bound claim whose spec.volumeAttributesClassName differs from
// status.currentVolumeAttributesClassName is marked `modifyVolumeStatus: InProgress` with a `ModifyingVolume`
// condition (Event VolumeModify), and the driver is called with the class's parameters (answering after the profile's
// modifyTicks). Done: the PV's class, then the claim's current class, and the status and both modify conditions
// cleared. Refused with InvalidArgument (a parameter the driver does not accept): `Infeasible`, `ModifyingVolume`
// "... failed. Waiting for retry." and `ModifyVolumeError` with the driver's code and words, then the slow set until the
// claim asks for another class; going back to the current class calls the driver again (the rollback). A class that
// does not exist: `Pending`, with no condition.
import { mustResourceType, type KubeObject } from '../store.ts';
import { conditionsOf, conditionTime, mergePvcConditions, writeClaim, type ClaimStatus, type Condition } from './claim-status.ts';
import { controllerModifyVolume, isFinalError, rpcErrorText, type RpcError } from './csi-driver.ts';
import { backendModification } from './backend-modifications.ts';
import { recordEvent } from './events.ts';
import { component } from './resizer.ts';
import { inSlowSet } from './sidecar-memory.ts';
import { driverNamed, type DriverProfile, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const vacType = mustResourceType('storage.k8s.io/v1', 'VolumeAttributesClass');

type Json = Record<string, unknown>;

export function modifyVolumes(world: World): void {
  if (!world.server.volumeAttributesClasses) return;
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase !== 'Bound' || typeof pvc.spec?.volumeName !== 'string' || pvc.spec.volumeName === '') continue;
    const pv = world.store.peek(pvType, undefined, pvc.spec.volumeName);
    const driver = driverNamed(world, (pv?.spec?.csi as Json | undefined)?.driver);
    if (!pv || !driver) continue;
    const uid = pvc.metadata.uid ?? '';
    const call = world.sidecars.modifyCalls.get(uid);
    if (call) {
      call.ticksLeft -= 1;
      if (call.ticksLeft > 0) continue;
      world.sidecars.modifyCalls.delete(uid);
      // The driver checks the parameters, then the backend takes the modification or refuses it (its limit).
      const error = controllerModifyVolume(driver, call.parameters) ?? backendModification(world, pv, driver, 'modify');
      if (error) refused(world, pvc, driver, error);
      else modified(world, pvc, pv, driver, call.className);
      continue;
    }
    modify(world, pvc, driver);
  }
}

function modify(world: World, pvc: Readonly<KubeObject>, driver: DriverProfile): void {
  const uid = pvc.metadata.uid ?? '';
  const status = (pvc.status ?? {}) as ClaimStatus;
  const wanted = typeof pvc.spec?.volumeAttributesClassName === 'string' ? pvc.spec.volumeAttributesClassName : '';
  const current = status.currentVolumeAttributesClassName ?? '';
  const modifyStatus = status.modifyVolumeStatus;
  // delayModificationIfRecentlyInfeasible: a refused class is not asked again soon, unless the claim wants another.
  if (modifyStatus === undefined || wanted === '' || modifyStatus.targetVolumeAttributesClassName !== wanted) world.sidecars.slowModify.delete(uid);
  else {
    const slow = inSlowSet(world.sidecars.slowModify, uid, world.now().getTime());
    if (modifyStatus.status === 'Infeasible' && !slow) world.sidecars.slowModify.set(uid, world.now().getTime());
    if (slow) return;
  }
  if (modifyStatus === undefined && wanted === current) return;
  const inProgress = modifyStatus?.status === 'InProgress';
  if (wanted === '' && !inProgress) {
    // Rolled back to no class: stop, and say a modification under way was cancelled.
    if (conditionsOf(pvc).some((c) => c.type === 'ModifyingVolume')) {
      recordEvent(world, pvc, 'Normal', 'VolumeModifyCanceled', 'Cancelled modify.', component(driver));
      writeClaim(world, pvc, (claim) => {
        claim.status.conditions = conditionsOf(pvc).filter((c) => c.type !== 'ModifyingVolume');
      });
    }
    return;
  }
  const target = wanted === '' ? modifyStatus?.targetVolumeAttributesClassName ?? '' : wanted;
  const vac = world.store.peek(vacType, undefined, target);
  if (!vac) {
    if (world.sidecars.missingClassReported.get(uid) !== target) {
      world.sidecars.missingClassReported.set(uid, target);
      recordEvent(world, pvc, 'Warning', 'VolumeModifyFailed', `VAC "${target}" does not exist.`, component(driver));
    }
    if (wanted !== '') markStatus(world, pvc, 'Pending', undefined);
    return;
  }
  world.sidecars.missingClassReported.delete(uid);
  if (wanted !== '') {
    markStatus(world, pvc, 'InProgress', undefined);
    recordEvent(world, pvc, 'Normal', 'VolumeModify', `external resizer is modifying volume ${pvc.metadata.name} with vac ${vac.metadata.name}`, component(driver));
  }
  const parameters = (vac.parameters ?? {}) as Record<string, string>;
  // The driver checks the parameters before any work: a refusal comes on the next tick, a change after modifyTicks.
  const ticksLeft = controllerModifyVolume(driver, parameters) ? 1 : driver.modifyTicks;
  world.sidecars.modifyCalls.set(uid, { className: vac.metadata.name, parameters, ticksLeft });
}

/** markControllerModifyVolumeStatus: InProgress, Infeasible (with the driver's error) or Pending (conditions untouched). */
function markStatus(world: World, pvc: Readonly<KubeObject>, state: 'Pending' | 'InProgress' | 'Infeasible', error: RpcError | undefined): void {
  writeClaim(world, pvc, (claim) => {
    const previous = claim.status.modifyVolumeStatus;
    const modifyStatus = { ...(previous ?? {}), status: state };
    if (state === 'Pending') {
      claim.status.modifyVolumeStatus = modifyStatus;
      return;
    }
    const now = conditionTime(world);
    const conditions: Condition[] = [];
    if (error === undefined) {
      modifyStatus.targetVolumeAttributesClassName = typeof pvc.spec?.volumeAttributesClassName === 'string' ? pvc.spec.volumeAttributesClassName : '';
      conditions.push({ type: 'ModifyingVolume', status: 'True', lastProbeTime: now, message: `Modifying volume to "${modifyStatus.targetVolumeAttributesClassName}" is in progress.` });
    } else {
      const target = modifyStatus.targetVolumeAttributesClassName ?? '';
      const message = isFinalError(error) ? `Modifying volume to "${target}" failed. Waiting for retry.` : `Modifying volume to "${target}" is still in progress.`;
      conditions.push({ type: 'ModifyingVolume', status: 'True', lastProbeTime: now, message });
      conditions.push({ type: 'ModifyVolumeError', status: 'True', lastProbeTime: now, reason: error.code, message: error.desc });
    }
    claim.status.modifyVolumeStatus = modifyStatus;
    claim.status.conditions = mergePvcConditions(conditionsOf(pvc), conditions);
  });
}

function refused(world: World, pvc: Readonly<KubeObject>, driver: DriverProfile, error: RpcError): void {
  // Only InvalidArgument is Infeasible; other final errors keep the modification InProgress, retried.
  markStatus(world, pvc, error.code === 'InvalidArgument' ? 'Infeasible' : 'InProgress', error);
  if (error.code === 'InvalidArgument') world.sidecars.slowModify.set(pvc.metadata.uid ?? '', world.now().getTime());
  const suffix = isFinalError(error) ? '' : `. Still modifying to VAC ${(pvc.status?.modifyVolumeStatus as Json | undefined)?.targetVolumeAttributesClassName as string}`;
  recordEvent(world, pvc, 'Warning', 'VolumeModifyFailed', `${rpcErrorText(error)}${suffix}`, component(driver));
}

/** markControllerModifyVolumeCompleted: the PV first, then the claim; then the VolumeModifySuccessful Event. */
function modified(world: World, pvc: Readonly<KubeObject>, pv: Readonly<KubeObject>, driver: DriverProfile, className: string): void {
  world.store.replace(pvType, { ...pv, spec: { ...(pv.spec ?? {}), volumeAttributesClassName: className } });
  writeClaim(world, pvc, (claim) => {
    claim.status.currentVolumeAttributesClassName = className;
    delete claim.status.modifyVolumeStatus;
    claim.status.conditions = conditionsOf(pvc).filter((c) => c.type !== 'ModifyingVolume' && c.type !== 'ModifyVolumeError');
  });
  recordEvent(world, pvc, 'Normal', 'VolumeModifySuccessful', `external resizer modified volume ${pvc.metadata.name} with vac ${className} successfully`, component(driver));
}
