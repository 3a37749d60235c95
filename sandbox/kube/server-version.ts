// The kube-apiserver version the sandbox plays, and what that version changes: its /version answer, its words (the
// StatefulSet and PVC immutability refusals), the features GA there (VolumeAttributesClass, the StatefulSet PVC
// retention policy) and the controllers its kube-controller-manager runs (the PV binder). Both versions were recorded
// against real servers (/work/shared/conformance/kube-v1.26.5 and kube-v1.34.9).

export type ServerVersionName = '1.34' | '1.26';

export interface ServerVersion {
  name: ServerVersionName;
  /** The minor version (resource types name the first minor that serves them). */
  minor: number;
  /** The `/version` answer, as the recorded server gave it. */
  versionInfo: Readonly<Record<string, string>>;
  gitVersion: string;
  /** StatefulSet spec fields an update may change; the rest is immutable. */
  statefulSetMutableFields: readonly string[];
  /** The refusal of an update to any other StatefulSet spec field. */
  statefulSetForbiddenMessage: string;
  /** The start of the refusal of a PVC spec change (a diff of the two specs follows). */
  pvcImmutableMessage: string;
  /** How that diff is printed: go-cmp's Go struct diff (v1.26) or a unified diff of the specs as JSON (v1.34). */
  pvcSpecDiffStyle: 'go-cmp' | 'unified-json';
  /** VolumeAttributesClass (KEP-3751) is GA: the resource is served, PVC/PV specs carry volumeAttributesClassName. */
  volumeAttributesClasses: boolean;
  /** StatefulSetAutoDeletePVC is on: every StatefulSet gets `persistentVolumeClaimRetentionPolicy`, and it is obeyed. */
  retentionPolicy: boolean;
  /** kube-controller-manager runs the PV binder (and the expand controller's events) on this version's cluster. */
  persistentVolumeBinder: boolean;
  /**
   * A watch from resourceVersion 0 asking for bookmarks gets one after the initial ADDED events, annotated
   * `k8s.io/initial-events-end` (v1.34; v1.26 sends only the closing one).
   */
  initialEventsEndBookmark: boolean;
  /** Fields client-node's models declare that this server does not know (unknown fields, dropped as such). */
  unknownFields: Readonly<Record<string, readonly string[]>>;
}

const forbiddenStatefulSetUpdate = (fields: readonly string[]): string => `Forbidden: updates to statefulset spec for fields other than ${fields.slice(0, -1).map((f) => `'${f}'`).join(', ')} and '${fields[fields.length - 1] ?? ''}' are forbidden`;

const mutable126 = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
// v1.27 added revisionHistoryLimit to the fields an update may change (and to the text).
const mutable134 = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export const serverVersions: Readonly<Record<ServerVersionName, ServerVersion>> = {
  '1.34': {
    name: '1.34',
    minor: 34,
    gitVersion: 'v1.34.9',
    versionInfo: {
      major: '1', minor: '34', emulationMajor: '1', emulationMinor: '34', minCompatibilityMajor: '1', minCompatibilityMinor: '33',
      gitVersion: 'v1.34.9', gitCommit: 'ba6535cbb8719c3ba6c3923f2725ba050c87faab', gitTreeState: 'clean', buildDate: '2026-11-25T11:52:05Z',
      goVersion: 'go1.24.4', compiler: 'gc', platform: 'linux/amd64',
    },
    statefulSetMutableFields: mutable134,
    statefulSetForbiddenMessage: forbiddenStatefulSetUpdate(mutable134),
    pvcImmutableMessage: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    pvcSpecDiffStyle: 'unified-json',
    volumeAttributesClasses: true,
    retentionPolicy: true,
    persistentVolumeBinder: true,
    initialEventsEndBookmark: true,
    unknownFields: {},
  },
  '1.26': {
    name: '1.26',
    minor: 26,
    gitVersion: 'v1.26.5',
    versionInfo: {
      major: '1', minor: '26', gitVersion: 'v1.26.5', gitCommit: '636f2be6157d', gitTreeState: 'clean', buildDate: '2026-11-23T12:46:08Z',
      goVersion: 'go1.19.8', compiler: 'gc', platform: 'linux/amd64',
    },
    statefulSetMutableFields: mutable126,
    statefulSetForbiddenMessage: forbiddenStatefulSetUpdate(mutable126),
    pvcImmutableMessage: 'Forbidden: spec is immutable after creation except resources.requests for bound claims',
    pvcSpecDiffStyle: 'go-cmp',
    volumeAttributesClasses: false,
    // StatefulSetAutoDeletePVC was alpha (off) in v1.26: the field is dropped on write and never defaulted.
    retentionPolicy: false,
    // The recorded v1.26.5 cluster ran no PV binder (its transcripts patch every binding with kubectl).
    persistentVolumeBinder: false,
    initialEventsEndBookmark: false,
    unknownFields: {
      V1PersistentVolumeClaimSpec: ['volumeAttributesClassName'],
      V1PersistentVolumeSpec: ['volumeAttributesClassName'],
      V1PersistentVolumeClaimStatus: ['currentVolumeAttributesClassName', 'modifyVolumeStatus'],
    },
  },
};

/** The newest version the sandbox plays, its default. */
export const defaultServerVersion: ServerVersion = serverVersions['1.34'];

export class ServerVersionError extends Error {}

/** `1.34`, `1.34.9`, `v1.34.9` -> the 1.34 profile; a version the sandbox does not play is an error naming those it does. */
export function parseServerVersion(text: string | number): ServerVersion {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(String(text).trim());
  const name = match ? `${match[1] ?? ''}.${match[2] ?? ''}` : '';
  const found = (serverVersions as Record<string, ServerVersion | undefined>)[name];
  const patch = match?.[3];
  if (!found || (patch !== undefined && `v${name}.${patch}` !== found.gitVersion)) {
    throw new ServerVersionError(`the Kubernetes sandbox plays ${Object.values(serverVersions).map((v) => `${v.name} (${v.gitVersion})`).join(' or ')}, not ${JSON.stringify(String(text))}`);
  }
  return found;
}
