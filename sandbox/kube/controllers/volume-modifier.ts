// The external-resizer's volume modification (KEP-3751, VolumeAttributesClass): when a bound claim's
// spec.volumeAttributesClassName differs from status.currentVolumeAttributesClassName, the driver changes the volume's
// attributes. modifyVolumeStatus says where it stands: Pending while the class does not exist, InProgress for the
// driver's modifyTicks, then the claim's current class (and its PV's) is the new one; a class the driver cannot reach
// (another driver's, or one its profile lists as unreachable) is Infeasible until the claim asks for another class,
// its current one included (the rollback, which clears the status).
import { mustResourceType, type KubeObject } from '../store.ts';
import { recordEvent } from './events.ts';
import { driverFor, type DriverProfile, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const vacType = mustResourceType('storage.k8s.io/v1', 'VolumeAttributesClass');

type Json = Record<string, unknown>;
interface ModifyVolumeStatus { targetVolumeAttributesClassName?: string; status?: 'Pending' | 'InProgress' | 'Infeasible' }

/** Whether `driver` can give a volume the attributes of class `vac` (its own driver's, not listed as unreachable). */
export function driverReaches(driver: DriverProfile, vac: Readonly<KubeObject>): boolean {
  return vac.driverName === driver.name && !driver.unreachableVolumeAttributesClasses.includes(vac.metadata.name);
}

export function modifyVolumes(world: World): void {
  if (!world.server.volumeAttributesClasses) return;
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase !== 'Bound' || pvc.metadata.deletionTimestamp) continue;
    stepPvc(world, pvc, driverFor(world, pvc.spec?.storageClassName));
  }
}

function stepPvc(world: World, pvc: Readonly<KubeObject>, driver: DriverProfile): void {
  const uid = pvc.metadata.uid ?? '';
  const status = (pvc.status ?? {}) as Json;
  const wanted = pvc.spec?.volumeAttributesClassName;
  const current = status.currentVolumeAttributesClassName;
  const modify = status.modifyVolumeStatus as ModifyVolumeStatus | undefined;
  if (typeof wanted !== 'string' || wanted === '' || wanted === current) {
    // Nothing asked, or asked back for the class the volume has (a rollback): nothing left to report.
    world.modifyTicks.delete(uid);
    if (modify !== undefined) writeStatus(world, pvc, { modifyVolumeStatus: undefined });
    return;
  }
  const vac = world.store.peek(vacType, undefined, wanted);
  if (!vac) {
    if (modify?.targetVolumeAttributesClassName !== wanted || modify.status !== 'Pending') writeStatus(world, pvc, { modifyVolumeStatus: { targetVolumeAttributesClassName: wanted, status: 'Pending' } });
    return;
  }
  if (modify?.targetVolumeAttributesClassName === wanted && modify.status === 'Infeasible') return;
  if (!driverReaches(driver, vac)) {
    writeStatus(world, pvc, { modifyVolumeStatus: { targetVolumeAttributesClassName: wanted, status: 'Infeasible' } });
    const message = `ModifyVolume failed for volume "${volumeName(pvc)}" with VolumeAttributesClass ${wanted}: rpc error: code = InvalidArgument desc = driver ${driver.name} cannot apply VolumeAttributesClass ${wanted}${vac.driverName === driver.name ? '' : ` of driver ${String(vac.driverName)}`}`;
    recordEvent(world, pvc, 'Warning', 'VolumeModifyFailed', message, `external-resizer ${driver.name}`);
    return;
  }
  if (modify?.targetVolumeAttributesClassName !== wanted || modify.status !== 'InProgress') {
    world.modifyTicks.set(uid, 0);
    writeStatus(world, pvc, { modifyVolumeStatus: { targetVolumeAttributesClassName: wanted, status: 'InProgress' } });
    recordEvent(world, pvc, 'Normal', 'VolumeModify', `external resizer is modifying volume ${pvc.metadata.name} with vac ${wanted}`, `external-resizer ${driver.name}`);
    return;
  }
  const ticks = (world.modifyTicks.get(uid) ?? 0) + 1;
  if (ticks < driver.modifyTicks) {
    world.modifyTicks.set(uid, ticks);
    return;
  }
  world.modifyTicks.delete(uid);
  const pv = world.store.peek(pvType, undefined, volumeName(pvc));
  if (pv) world.store.replace(pvType, { ...pv, spec: { ...(pv.spec ?? {}), volumeAttributesClassName: wanted } });
  writeStatus(world, pvc, { currentVolumeAttributesClassName: wanted, modifyVolumeStatus: undefined });
  recordEvent(world, pvc, 'Normal', 'VolumeModifySuccessful', `external resizer modified volume ${pvc.metadata.name} with vac ${wanted} successfully`, `external-resizer ${driver.name}`);
}

/** Sets (or, for undefined values, removes) status fields on the stored claim. */
function writeStatus(world: World, pvc: Readonly<KubeObject>, changes: Record<string, unknown>): void {
  const fresh = world.store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name) ?? pvc;
  const status: Json = { ...(fresh.status ?? {}) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete status[key];
    else status[key] = value;
  }
  world.store.replace(pvcType, { ...fresh, status });
}

function volumeName(pvc: Readonly<KubeObject>): string {
  return typeof pvc.spec?.volumeName === 'string' ? pvc.spec.volumeName : '';
}
