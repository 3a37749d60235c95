// What a Kubernetes server version means for this tool (pure): whether a failed expansion can be recovered by lowering
// the request (KEP-1790: alpha behind RecoverVolumeExpansionFailure in 1.23, beta and on by default in 1.32, GA in
// 1.34) and whether VolumeAttributesClass exists (alpha 1.29, beta 1.31 off by default, GA 1.34).

export interface ServerVersion {
  major: number;
  minor: number;
  /** As the server says it, e.g. `v1.34.9` or `v1.30.4-eks-a737599`. */
  gitVersion: string;
}

/** The oldest version the tool is tested against (recorded answers of a real server, test/conformance). */
export const oldestTestedVersion: ServerVersion = { major: 1, minor: 26, gitVersion: 'v1.26.5' };

/** `GET /version`'s fields as a version; managed clusters say minor `30+`. undefined when unreadable. */
export function parseServerVersion(info: { major?: string; minor?: string; gitVersion?: string }): ServerVersion | undefined {
  const major = Number.parseInt(info.major ?? '', 10);
  const minor = Number.parseInt(info.minor ?? '', 10);
  if (Number.isInteger(major) && Number.isInteger(minor)) return { major, minor, gitVersion: info.gitVersion ?? `v${major}.${minor}` };
  const match = /^v(\d+)\.(\d+)/.exec(info.gitVersion ?? '');
  return match ? { major: Number(match[1]), minor: Number(match[2]), gitVersion: info.gitVersion ?? '' } : undefined;
}

export interface ServerCapabilities {
  /** Lowering a request to a size above the PVC's capacity after a failed expansion (recovery pull requests). */
  expansionRecovery: 'ga' | 'on-by-default' | 'behind-feature-gate' | 'absent';
  volumeAttributesClass: 'ga' | 'off-by-default' | 'absent';
  /** At or above the oldest tested version. */
  tested: boolean;
}

export function serverCapabilities(version: ServerVersion): ServerCapabilities {
  const at = (minor: number): boolean => version.major > 1 || (version.major === 1 && version.minor >= minor);
  return {
    expansionRecovery: at(34) ? 'ga' : at(32) ? 'on-by-default' : at(23) ? 'behind-feature-gate' : 'absent',
    volumeAttributesClass: at(34) ? 'ga' : at(29) ? 'off-by-default' : 'absent',
    tested: at(oldestTestedVersion.minor),
  };
}
