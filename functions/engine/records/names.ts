// What a recreation record is called, and what, in the state namespace, claims to be one. Pure.
import { createHash } from 'node:crypto';

const recordPrefix = 'sts-volume-gitops-recreate';
const maxObjectName = 253;

/**
 * The record's ConfigMap name in the target's state namespace: `sts-volume-gitops-recreate.<target>.<namespace>.<name>`.
 * Target and namespace names hold no dot, so two StatefulSets never share a name; one too long for a ConfigMap name
 * (253) keeps a prefix of the StatefulSet's name and ends with a hash of the whole.
 */
export function recreationRecordName(target: string, namespace: string, statefulSetName: string): string {
  const full = `${recordPrefix}.${target}.${namespace}.${statefulSetName}`;
  if (full.length <= maxObjectName) return full;
  const hash = createHash('sha256').update(`${namespace}/${statefulSetName}`).digest('hex').slice(0, 16);
  // Each dot-separated part must end with a letter or digit: the cut must not leave a `-` or `.` before the hash.
  const kept = full.slice(0, maxObjectName - hash.length - 1).replace(/[-.]+$/, '');
  return `${kept}-${hash}`;
}

/** The name older versions gave a record, in the StatefulSet's own namespace (found and reported after an upgrade). */
export function legacyRecreationRecordName(statefulSetName: string): string {
  return `${recordPrefix}-${statefulSetName}`.slice(0, maxObjectName);
}

/** What a ConfigMap of the state namespace says of itself: its name, whether it has the record label, its target label. */
export interface ConfigMapClaim {
  name: string;
  isRecord: boolean;
  target: string | undefined;
}

/**
 * Whether a ConfigMap of the state namespace is one `target` must look at as a record: labelled as a record (of
 * `target`, or of none), or named like one of its records whatever its labels. A planted ConfigMap cannot hide from the
 * pass by leaving the label out; another target's records (labelled so, named otherwise) are that target's.
 */
export function claimsToBeRecordOf(target: string, configMap: ConfigMapClaim): boolean {
  if (configMap.name.startsWith(`${recordPrefix}.${target}.`)) return true;
  return configMap.isRecord && (configMap.target === undefined || configMap.target === target);
}
