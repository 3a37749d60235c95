// What a kube-apiserver of a given version does differently for this tool, from its `/version` answer. Pure, so the
// plan, the pass report and the `check` command say the same thing about one server.
// Sources: KEP-1790 (RecoverVolumeExpansionFailure: alpha 1.23, beta and on by default 1.32, GA 1.34), KEP-3751
// (VolumeAttributesClass: alpha 1.29, beta 1.31 with storage.k8s.io/v1beta1 off by default, GA 1.34 as
// storage.k8s.io/v1), KEP-1790's `allocatedResourceStatuses` (1.28) and its `*ResizeInfeasible` states (1.31).

/** The `/version` answer, as the server sends it (`minor` is `34+` on EKS and GKE). */
export interface VersionInfo {
  major?: string;
  minor?: string;
  gitVersion?: string;
  platform?: string;
}

export interface ServerVersion {
  major: number;
  minor: number;
  /** As the server spells it: `v1.34.9`, `v1.30.4-eks-a737599`. */
  gitVersion: string;
}

export class ServerVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerVersionError';
  }
}

/** Reads major.minor from `gitVersion` (`v1.34.9-eks-...`), else from `major`/`minor` (`34+`). */
export function parseServerVersion(info: VersionInfo): ServerVersion {
  const fromGit = /^v?(\d+)\.(\d+)/.exec(info.gitVersion ?? '');
  const major = Number(fromGit?.[1] ?? /^\d+/.exec(info.major ?? '')?.[0]);
  const minor = Number(fromGit?.[2] ?? /^\d+/.exec(info.minor ?? '')?.[0]);
  if (!Number.isInteger(major) || !Number.isInteger(minor)) {
    throw new ServerVersionError(`the API server's /version answer names no version (gitVersion ${JSON.stringify(info.gitVersion)}, major ${JSON.stringify(info.major)}, minor ${JSON.stringify(info.minor)})`);
  }
  return { major, minor, gitVersion: info.gitVersion ?? `v${major}.${minor}` };
}

export function atLeast(version: ServerVersion, minor: number): boolean {
  return version.major > 1 || (version.major === 1 && version.minor >= minor);
}

/** Where VolumeAttributesClass objects are served: `none` when the tool cannot change classes on this server. */
export type VolumeAttributesClassApi = 'storage.k8s.io/v1' | 'storage.k8s.io/v1beta1' | 'none';

export interface ServerCapabilities {
  version: ServerVersion;
  /**
   * Lowering a request to a value above `status.capacity` (KEP-1790 recovery): `ga` from 1.34, `default-on` (beta) in
   * 1.32-1.33, `feature-gate` before (only where RecoverVolumeExpansionFailure was switched on; the dry run tells).
   */
  lowerRequest: 'ga' | 'default-on' | 'feature-gate';
  /**
   * Changing a PVC's `volumeAttributesClassName`: `ga` from 1.34 (storage.k8s.io/v1), `beta-if-enabled` in 1.31-1.33
   * (only where the VolumeAttributesClass gate and storage.k8s.io/v1beta1 were enabled), `unsupported` before
   * (the 1.29-1.30 alpha is not used by this tool).
   */
  volumeAttributesClass: 'ga' | 'beta-if-enabled' | 'unsupported';
  /** The API to list classes with (v1beta1 may still be switched off; a 404 then says so). */
  volumeAttributesClassApi: VolumeAttributesClassApi;
  /** Terminal expansion failures are `*ResizeInfeasible` from 1.31, `*ResizeFailed` before. */
  infeasibleResizeStatus: boolean;
}

export function capabilitiesOf(version: ServerVersion): ServerCapabilities {
  const vac = atLeast(version, 34) ? 'ga' : atLeast(version, 31) ? 'beta-if-enabled' : 'unsupported';
  return {
    version,
    lowerRequest: atLeast(version, 34) ? 'ga' : atLeast(version, 32) ? 'default-on' : 'feature-gate',
    volumeAttributesClass: vac,
    volumeAttributesClassApi: vac === 'ga' ? 'storage.k8s.io/v1' : vac === 'beta-if-enabled' ? 'storage.k8s.io/v1beta1' : 'none',
    infeasibleResizeStatus: atLeast(version, 31),
  };
}

/** Sentences for people (the pass report, the plan comment, the `check` command): what this server will do. */
export function describeCapabilities(capabilities: ServerCapabilities): string[] {
  const v = capabilities.version.gitVersion;
  return [
    capabilities.lowerRequest === 'ga'
      ? `lowering a request above capacity (KEP-1790 recovery): accepted by ${v} (GA since 1.34)`
      : capabilities.lowerRequest === 'default-on'
        ? `lowering a request above capacity (KEP-1790 recovery): accepted by ${v} unless RecoverVolumeExpansionFailure (beta, on by default in 1.32-1.33) was switched off`
        : `lowering a request above capacity (KEP-1790 recovery): ${v} accepts it only with the RecoverVolumeExpansionFailure feature gate (alpha before 1.32); the dry run tells`,
    capabilities.volumeAttributesClass === 'ga'
      ? `volume performance classes (VolumeAttributesClass): changed by ${v} (storage.k8s.io/v1, GA since 1.34)`
      : capabilities.volumeAttributesClass === 'beta-if-enabled'
        ? `volume performance classes (VolumeAttributesClass): ${v} changes them only where the VolumeAttributesClass feature gate and storage.k8s.io/v1beta1 are enabled (beta, off by default in 1.31-1.33)`
        : `volume performance classes (VolumeAttributesClass): not changed on ${v} (needs 1.34, or 1.31-1.33 with the beta API enabled)`,
  ];
}

/** What lowering these PVCs' requests (KEP-1790, above capacity) meets on this server; undefined where it is GA. */
export function lowerRequestNote(version: ServerVersion, pvcNames: readonly string[]): string | undefined {
  const support = capabilitiesOf(version).lowerRequest;
  if (support === 'ga') return undefined;
  return support === 'default-on'
    ? `lowering ${pvcNames.join(', ')}: ${version.gitVersion} accepts it while RecoverVolumeExpansionFailure (beta, on by default in 1.32-1.33) is on`
    : `lowering ${pvcNames.join(', ')}: ${version.gitVersion} accepts it only with the RecoverVolumeExpansionFailure feature gate (alpha before 1.32); the dry run asks the server`;
}
