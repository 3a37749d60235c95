// Which recreations are in progress, as the Lease says in a mark only this deployment can write: a record is acted on
// once, while the recreation it was written for is outstanding, never as a standing instruction. The holder writes a
// record's id (its MAC, unique per seal: the seal time is under it) into the mark in the Lease write that fences the
// save, before the ConfigMap exists, and drops it in the Lease write that follows the record's delete. The mark is an
// HMAC-SHA256 with the record key over the ids and the Lease's place (namespace, name, target), so it cannot be written
// by someone who may only write ConfigMaps, nor moved to another target's Lease. A copy of a record put back after its recreation
// finished is not in the mark, and is refused like a forged one. Pure.
import type { RecreationRecord } from '../../domain/live-state.ts';
import type { LeaseMarks, LeaseState } from '../ports.ts';
import { mappedValuesOf, type DesiredInput } from '../desired/desired-input.ts';
import type { RecordKey } from './authenticity.ts';

const markVersion = 'sts-volume-gitops.io/outstanding-recreations/v1';

/** The Lease whose mark it is: the mark verifies only there. */
export interface MarkPlace {
  leaseNamespace: string;
  leaseName: string;
  target: string;
}

/** A record's id in the mark: its MAC (undefined for a record without one, which is never outstanding). */
export function recordId(record: Pick<RecreationRecord, 'mac'>): string | undefined {
  return record.mac;
}

function markText(ids: readonly string[], place: MarkPlace): string {
  return JSON.stringify([markVersion, place.leaseNamespace, place.leaseName, place.target, ids]);
}

/** The annotation's text for `ids` (sorted, so the same ids always give the same text), or undefined when none. */
export function signOutstanding(ids: Iterable<string>, key: RecordKey, place: MarkPlace): string | undefined {
  const sorted = [...new Set(ids)].sort();
  if (sorted.length === 0) return undefined;
  return JSON.stringify({ records: sorted, mac: key.mac(markText(sorted, place)).toString('base64') });
}

/** What a pass believes of the outstanding recreations: the ids of a mark that verified, or why none is believed. */
export interface Outstanding {
  ids: ReadonlySet<string>;
  /** Why the Lease's mark was not believed (it then lists nothing); undefined when it verified or there was none. */
  problem?: string;
}

/** The ids the Lease's mark lists, only when its MAC verifies for this place with `key`. */
export function readOutstanding(text: string | undefined, key: RecordKey | undefined, place: MarkPlace): Outstanding {
  if (text === undefined) return { ids: new Set() };
  if (key === undefined) return { ids: new Set(), problem: 'no record key is configured to check it' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ids: new Set(), problem: 'it is not the JSON this tool writes' };
  }
  const { records, mac } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { records?: unknown; mac?: unknown };
  if (!Array.isArray(records) || !records.every((r): r is string => typeof r === 'string') || typeof mac !== 'string') {
    return { ids: new Set(), problem: 'it is not the JSON this tool writes' };
  }
  if (!key.verifies(markText(records, place), mac)) {
    return { ids: new Set(), problem: 'its MAC does not verify: this deployment did not write it there (or the record key was changed)' };
  }
  return { ids: new Set(records) };
}

/** What a trusted record must also be to be acted on: outstanding, and for a StatefulSet Git still has. */
export interface RecordStanding {
  outstanding: Outstanding;
  /** `namespace/name` of every StatefulSet in the desired state at the branch head. */
  desired: ReadonlySet<string>;
  /** The Lease whose mark it is, and its resourceVersion as the pass read it (a save since shows as a newer one). */
  place: MarkPlace;
  leaseVersion: string | undefined;
  /** The head commit, for the reasons. */
  commitSha: string;
}

/** Every StatefulSet the desired state names: the manifests' and those size sources map. */
export function desiredStatefulSetKeys(desired: DesiredInput): Set<string> {
  return new Set([...desired.statefulSets, ...mappedValuesOf(desired)].map((s) => `${s.namespace}/${s.name}`));
}

/**
 * Why an authentic record is still not to be acted on (one sentence), or undefined when it may be: its recreation is not
 * outstanding (the Lease's mark does not list it), or its StatefulSet is no longer in Git at the branch head (a set
 * removed from Git is never brought back from a record, whatever the record and the mark say).
 */
export function standingRefusal(record: RecreationRecord, standing: RecordStanding): string | undefined {
  if (!isListed(record, standing)) {
    const lease = `${standing.place.leaseNamespace}/${standing.place.leaseName}`;
    const why = standing.outstanding.problem === undefined
      ? `the Lease ${lease} does not list it among the recreations in progress`
      : `the Lease ${lease}'s list of recreations in progress is not believed (${standing.outstanding.problem})`;
    return `not an outstanding recreation: ${why}. A record is acted on once, while the recreation it was written for is in progress; `
      + 'this one was finished (or never begun) by this deployment, so it is a copy put back or a forgery';
  }
  const statefulSet = `${record.namespace}/${record.statefulSetName}`;
  if (!standing.desired.has(statefulSet)) {
    return `StatefulSet ${statefulSet} is not in the desired state at the branch head (${standing.commitSha.slice(0, 12)}): `
      + 'a record never brings back a StatefulSet Git no longer has (removed from Git, or its manifest has an error)';
  }
  return undefined;
}

/** Whether the Lease's mark, as the pass read it and verified, lists the record among the recreations in progress. */
export function isListed(record: Pick<RecreationRecord, 'mac'>, standing: Pick<RecordStanding, 'outstanding'>): boolean {
  const id = recordId(record);
  return id !== undefined && standing.outstanding.ids.has(id);
}

/** What a pass holds records to: the mark of the Lease it read (verified), and the desired state at the head. */
export function recordStanding(
  lease: LeaseState | undefined, key: RecordKey | undefined, place: MarkPlace, desired: DesiredInput, commitSha: string,
): RecordStanding {
  return {
    outstanding: readOutstanding(lease?.outstandingRecords, key, place), desired: desiredStatefulSetKeys(desired),
    place, leaseVersion: lease?.resourceVersion, commitSha,
  };
}

/** Whether a pass that took no Lease must write `marks` on it: it has none, a holder (expired) or other marks. */
export function leaseMarksDiffer(lease: LeaseState | undefined, marks: LeaseMarks): boolean {
  return !lease || lease.holder !== undefined || lease.recreationRecords !== marks.records || lease.outstandingRecords !== marks.outstanding;
}
