// The recorded stack, as a sandbox seed: the StorageClasses, driver profiles and VolumeAttributesClasses the CSI
// recording was made with (README.md beside this file), and the controllers that cluster ran. It had no kubelet and
// no scheduler, so pods stay Pending and no node expansion happens.
import type { ControllerName } from '../../../sandbox/kube/controllers/index.ts';

const hostpathFlags = { maxVolumeSize: '50Gi', acceptedMutableParameterNames: ['iops', 'throughput'], ticksPerPhase: 1, modifyTicks: 1 };

export const recordedStack = {
  version: '1.34',
  storageClasses: [
    // csi-driver-host-path v1.17.1: --max-volume-size=53687091200 --accepted-mutable-parameter-names iops,throughput
    { name: 'csi-hostpath', allowVolumeExpansion: true, driver: { name: 'hostpath.csi.k8s.io', expansion: 'controller+node', ...hostpathFlags } },
    // the second instance, with --disable-node-expansion
    { name: 'csi-hostpath-nonode', allowVolumeExpansion: true, driver: { name: 'hostpath-nonode.csi.k8s.io', expansion: 'controller-only', ...hostpathFlags } },
  ],
  volumeAttributesClasses: [
    { name: 'broken', driverName: 'hostpath.csi.k8s.io', parameters: { iops: '500', notAMutableParameter: 'x' } },
    { name: 'fast', driverName: 'hostpath.csi.k8s.io', parameters: { iops: '3000', throughput: '250' } },
    { name: 'slow', driverName: 'hostpath.csi.k8s.io', parameters: { iops: '100', throughput: '25' } },
  ],
};

/** kube-controller-manager's controllers, the external-provisioner and the external-resizer; no kubelet. */
export const recordedControllers: readonly ControllerName[] = [
  'namespace', 'serviceaccount', 'garbage-collector', 'volume-protection', 'statefulset', 'provisioner', 'persistentvolume-binder',
  'volume-expand', 'resizer', 'resourcequota',
];

/** The recording's date; each command then moves the sandbox clock on (see play.ts). */
export const recordingStart = Date.parse('2026-11-25T20:47:10Z');
