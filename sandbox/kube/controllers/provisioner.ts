// The external-provisioner (v6.0.2 over sig-storage-lib-external-provisioner v13) for the CSI drivers this cluster
// runs, held to what it did in front of a real v1.34.9 server (test/conformance/csi). A Pending claim the PV controller
// has handed to a driver (its `volume.kubernetes.io/storage-provisioner` annotation, persistent-volume-binder.ts) gets
// `Provisioning`, then the driver's CreateVolume: a PV naming the claim (which the binder then binds) and
// `ProvisioningSucceeded`, or `ProvisioningFailed` in the driver's words and a retry after a backoff (an infeasible
// answer, such as a VolumeAttributesClass the driver cannot give: "Retries will be delayed", in the slow set). On v1.26,
// whose recorded cluster ran no PV controller, the provisioner binds the claim itself. A claim stays Pending where a
// real cluster leaves it so: no class, a class no driver serves, WaitForFirstConsumer with no pod using it, a volume
// named by hand. When its claim is gone, a volume of reclaim policy Delete is deleted with the driver's volume.
import { randomUUID } from 'node:crypto';
import { quantityOfBytes, sandboxBytesOf } from '../quantity.ts';
import { mustResourceType, type KubeObject } from '../store.ts';
import { createVolume, isInfeasibleProvisioningError, rpcErrorText } from './csi-driver.ts';
import { recordEvent } from './events.ts';
import { storageProvisionerAnnotation, usedByPod } from './persistent-volume-binder.ts';
import { firstRetryMs, slowRetryMs } from './sidecar-memory.ts';
import { pvProtectionFinalizer } from './volume-protection.ts';
import { defaultDriver, type DriverProfile, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const vacType = mustResourceType('storage.k8s.io/v1', 'VolumeAttributesClass');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');

type Json = Record<string, unknown>;

const provisionerFinalizer = 'external-provisioner.volume.kubernetes.io/finalizer';
const provisionedBy = 'pv.kubernetes.io/provisioned-by';

/** The driver that would provision this claim now, if any. */
function servingDriver(world: World, pvc: Readonly<KubeObject>): DriverProfile | undefined {
  const className = pvc.spec?.storageClassName;
  if (typeof className !== 'string' || className === '') return undefined;
  const storageClass = world.store.peek(storageClassType, undefined, className);
  if (!storageClass) return undefined;
  if (storageClass.volumeBindingMode === 'WaitForFirstConsumer' && !usedByPod(world, pvc)) return undefined;
  return world.drivers.get(className) ?? [...world.drivers.values(), defaultDriver].find((d) => d.name === storageClass.provisioner);
}

export function provisionVolumes(world: World): void {
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase === 'Bound' || pvc.metadata.deletionTimestamp) continue;
    const spec = pvc.spec ?? {};
    const requested = sandboxBytesOf(((spec.resources as Json | undefined)?.requests as Json | undefined)?.storage);
    if (requested === undefined || (typeof spec.volumeName === 'string' && spec.volumeName !== '')) continue;
    const driver = servingDriver(world, pvc);
    if (!driver) continue;
    // With a PV controller (v1.34), a claim is this provisioner's once that controller has named its driver.
    if (world.server.persistentVolumeBinder && pvc.metadata.annotations?.[storageProvisionerAnnotation] !== driver.name) continue;
    const uid = pvc.metadata.uid ?? '';
    const retry = world.sidecars.provisioningRetries.get(uid);
    if ((retry && retry.notBefore > world.now().getTime()) || world.store.peek(pvType, undefined, volumeNameOf(pvc))) continue;
    provision(world, pvc, driver, requested);
  }
  reclaimVolumes(world);
}

function volumeNameOf(pvc: Readonly<KubeObject>): string {
  return `pvc-${pvc.metadata.uid ?? ''}`;
}

/** The provisioner's event source: `<driver>_<host>_<uuid>` (its leader-election identity). */
function provisionerComponent(world: World, driver: DriverProfile): string {
  let identity = world.sidecars.provisionerIdentities.get(driver.name);
  if (identity === undefined) {
    identity = `${driver.name}_sandbox_${randomUUID()}`;
    world.sidecars.provisionerIdentities.set(driver.name, identity);
  }
  return identity;
}

function provision(world: World, pvc: Readonly<KubeObject>, driver: DriverProfile, requested: bigint): void {
  const spec = pvc.spec ?? {};
  const component = provisionerComponent(world, driver);
  recordEvent(world, pvc, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${pvc.metadata.namespace ?? ''}/${pvc.metadata.name}"`, component);
  const attributesClass = typeof spec.volumeAttributesClassName === 'string' && spec.volumeAttributesClassName !== '' ? spec.volumeAttributesClassName : undefined;
  let mutableParameters: Record<string, string> | undefined;
  if (attributesClass !== undefined) {
    const vac = world.store.peek(vacType, undefined, attributesClass);
    if (!vac) return failed(world, pvc, component, `volumeattributesclasses.storage.k8s.io "${attributesClass}" not found`, false);
    if (vac.driverName !== driver.name) return failed(world, pvc, component, `VAC ${attributesClass} referenced in PVC is for driver ${String(vac.driverName)} which does not match driver name ${driver.name}`, false);
    mutableParameters = (vac.parameters ?? {}) as Record<string, string>;
  }
  const error = createVolume(driver, requested, mutableParameters);
  if (error) {
    const infeasible = isInfeasibleProvisioningError(error);
    return failed(world, pvc, component, infeasible ? `Volume provisioning failed with infeasible error. Retries will be delayed. ${rpcErrorText(error)}` : rpcErrorText(error), infeasible);
  }
  world.sidecars.provisioningRetries.delete(pvc.metadata.uid ?? '');
  const volumeName = volumeNameOf(pvc);
  const storage = quantityOfBytes(requested);
  const bindsItself = !world.server.persistentVolumeBinder;
  world.store.create(pvType, {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: {
      name: volumeName,
      annotations: { [provisionedBy]: driver.name, 'volume.kubernetes.io/provisioner-deletion-secret-name': '', 'volume.kubernetes.io/provisioner-deletion-secret-namespace': '' },
      finalizers: [provisionerFinalizer, pvProtectionFinalizer],
    },
    spec: {
      capacity: { storage }, accessModes: spec.accessModes ?? ['ReadWriteOnce'], storageClassName: spec.storageClassName,
      persistentVolumeReclaimPolicy: 'Delete', volumeMode: spec.volumeMode ?? 'Filesystem',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: pvc.metadata.namespace, name: pvc.metadata.name, uid: pvc.metadata.uid, apiVersion: 'v1', resourceVersion: pvc.metadata.resourceVersion },
      csi: { driver: driver.name, volumeHandle: volumeName },
      ...(attributesClass === undefined ? {} : { volumeAttributesClassName: attributesClass }),
    },
    status: { phase: bindsItself ? 'Bound' : 'Pending' },
  });
  if (bindsItself) {
    world.store.replace(pvcType, {
      ...pvc,
      metadata: { ...pvc.metadata, annotations: { ...pvc.metadata.annotations, 'pv.kubernetes.io/bind-completed': 'yes', [storageProvisionerAnnotation]: driver.name } },
      spec: { ...spec, volumeName },
      status: { phase: 'Bound', accessModes: spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage }, ...(attributesClass === undefined ? {} : { currentVolumeAttributesClassName: attributesClass }) },
    });
  }
  recordEvent(world, pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName}`, component);
}

/** ProvisioningFailed, and when to try again: after the slow set's delay when infeasible, else a doubling backoff. */
function failed(world: World, pvc: Readonly<KubeObject>, component: string, message: string, infeasible: boolean): void {
  recordEvent(world, pvc, 'Warning', 'ProvisioningFailed', message, component);
  const uid = pvc.metadata.uid ?? '';
  const delayMs = infeasible ? slowRetryMs : world.sidecars.provisioningRetries.get(uid)?.delayMs ?? firstRetryMs;
  world.sidecars.provisioningRetries.set(uid, { notBefore: world.now().getTime() + delayMs, delayMs: Math.min(delayMs * 2, slowRetryMs) });
}

/**
 * A volume this cluster's drivers provisioned, reclaim policy Delete, whose claim is gone: the provisioner deletes the
 * driver's volume and the PV (its own finalizer off; pv-protection then lets it go, volume-protection.ts).
 */
function reclaimVolumes(world: World): void {
  for (const pv of world.store.peekList(pvType)) {
    const finalizers = pv.metadata.finalizers ?? [];
    if (!finalizers.includes(provisionerFinalizer) || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') continue;
    const ref = pv.spec.claimRef as { namespace?: string; name?: string; uid?: string } | undefined;
    const claim = ref?.name ? world.store.peek(pvcType, ref.namespace, ref.name) : undefined;
    if (claim && claim.metadata.uid === ref?.uid) continue;
    world.store.replace(pvType, {
      ...pv,
      metadata: { ...pv.metadata, deletionTimestamp: pv.metadata.deletionTimestamp ?? world.store.timestamp(), finalizers: finalizers.filter((f) => f !== provisionerFinalizer) },
      status: { ...pv.status, phase: 'Released' },
    });
  }
}
