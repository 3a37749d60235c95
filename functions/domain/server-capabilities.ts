// What a kube-apiserver of a given version does differently for this tool, from its `/version` answer (pure).
// Sources: KEP-1790 (RecoverVolumeExpansionFailure: alpha 1.23, beta and on by default 1.32, GA 1.34), KEP-3751
// (VolumeAttributesClass: alpha 1.29, beta 1.31 with storage.k8s.io/v1beta1 off by default, GA 1.34).
// The `vac` work adds the same module with more in it (same names); this is the part `check` needs.

/** The `/version` answer, as the server sends it (`minor` is `34+` on EKS and GKE). */
export interface VersionInfo {
  major?: string;
  minor?: string;
  gitVersion?: string;
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

export interface ServerCapabilities {
  version: ServerVersion;
  /**
   * Lowering a request to a value above `status.capacity` (KEP-1790 recovery): `ga` from 1.34, `default-on` (beta) in
   * 1.32-1.33, `feature-gate` before (only where RecoverVolumeExpansionFailure was switched on).
   */
  lowerRequest: 'ga' | 'default-on' | 'feature-gate';
  /** VolumeAttributesClass: `ga` from 1.34, `beta-if-enabled` in 1.31-1.33, `unsupported` before. */
  volumeAttributesClass: 'ga' | 'beta-if-enabled' | 'unsupported';
}

export function capabilitiesOf(version: ServerVersion): ServerCapabilities {
  return {
    version,
    lowerRequest: atLeast(version, 34) ? 'ga' : atLeast(version, 32) ? 'default-on' : 'feature-gate',
    volumeAttributesClass: atLeast(version, 34) ? 'ga' : atLeast(version, 31) ? 'beta-if-enabled' : 'unsupported',
  };
}
