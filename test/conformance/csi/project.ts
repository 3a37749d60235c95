// What the CSI replay compares of a claim: one version as a plain view (from a recorded watch line, a snapshot or the
// sandbox's store), projected with what varies between runs normalised. Names, uids and resourceVersions go; condition
// times become `new` (set by this write) or `kept` (as in the previous version), which is what lastTransitionTime and
// lastProbeTime semantics are about; the moment itself is the recording's clock.
import { isDeepStrictEqual } from 'node:util';
import type { Snapshot, WatchLine } from './recording.ts';

type Json = Record<string, unknown>;

export interface ClaimView {
  annotations: Record<string, string>;
  deleting: boolean;
  request: string | undefined;
  volumeAttributesClassName: string | null;
  volumeMode: string | undefined;
  volumeName: string | null;
  status: Json;
}

/** Set by kubectl apply: what the recorder's client did, not what the cluster did. */
const clientAnnotations = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

function ownAnnotations(annotations: Record<string, string> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => !clientAnnotations.has(key)).sort(([a], [b]) => a.localeCompare(b)));
}

export function viewOfWatchLine(line: WatchLine): ClaimView {
  return {
    annotations: ownAnnotations(line.annotations), deleting: line.deletionTimestamp !== null, request: line.spec.requests?.storage,
    volumeAttributesClassName: line.spec.volumeAttributesClassName, volumeMode: line.spec.volumeMode, volumeName: line.spec.volumeName, status: line.status,
  };
}

export function viewOfObject(object: Snapshot['object']): ClaimView {
  const spec = object.spec as { resources?: { requests?: Record<string, string> }; volumeAttributesClassName?: string; volumeMode?: string; volumeName?: string };
  return {
    annotations: ownAnnotations(object.metadata.annotations), deleting: object.metadata.deletionTimestamp !== undefined, request: spec.resources?.requests?.storage,
    volumeAttributesClassName: spec.volumeAttributesClassName ?? null, volumeMode: spec.volumeMode, volumeName: spec.volumeName ?? null, status: object.status ?? {},
  };
}

interface Condition { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string | null; lastProbeTime?: string | null }

function timeLabel(value: string | null | undefined, previous: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  return value === previous ? 'kept' : 'new';
}

function projectConditions(conditions: unknown, previous: unknown, withTimes: boolean): Json[] | undefined {
  if (!Array.isArray(conditions)) return undefined;
  const before = (Array.isArray(previous) ? previous : []) as Condition[];
  return (conditions as Condition[]).map((c) => {
    const old = before.find((p) => p.type === c.type);
    const projected: Json = { type: c.type, status: c.status };
    if (c.reason !== undefined) projected.reason = c.reason;
    if (c.message !== undefined) projected.message = c.message;
    if (withTimes) {
      projected.lastTransitionTime = timeLabel(c.lastTransitionTime, old?.lastTransitionTime);
      projected.lastProbeTime = timeLabel(c.lastProbeTime, old?.lastProbeTime);
    }
    return projected;
  });
}

/** One version, projected; `previous` (the version before it) gives condition times their meaning. */
export function projectClaim(view: ClaimView, previous: ClaimView | undefined, withTimes = true): Json {
  const { conditions, ...status } = view.status;
  const projectedConditions = projectConditions(conditions, previous?.status.conditions, withTimes);
  return {
    annotations: view.annotations,
    ...(view.deleting ? { deleting: true } : {}),
    request: view.request,
    volumeAttributesClassName: view.volumeAttributesClassName,
    volumeMode: view.volumeMode,
    volumeName: view.volumeName === null ? null : '<volume>',
    status: projectedConditions === undefined ? status : { ...status, conditions: projectedConditions },
  };
}

/** The same state, condition times aside. */
export function sameState(a: ClaimView, b: ClaimView): boolean {
  return isDeepStrictEqual(projectClaim(a, undefined, false), projectClaim(b, undefined, false));
}

/** A version worth a line: it changed something compared (condition times included) since `last`. */
export function changedSince(view: ClaimView, last: ClaimView | undefined): boolean {
  return last === undefined || !sameState(view, last) || !isDeepStrictEqual(view.status.conditions, last.status.conditions);
}

/** A claim's versions and its volume's (capacity and class) changes, in the order they were written. */
export type StreamItem = { rv: number; claim: ClaimView } | { rv: number; volume: { capacity: string | undefined; volumeAttributesClassName: string | null } };

/** JSON with every object's keys sorted: the order a server writes fields in is not compared. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v !== 'object' || v === null) return v;
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Json)[k])]));
  };
  return JSON.stringify(sort(value));
}

/** The items as compared: a claim version projected against the claim version before it, a volume change as a line. */
export function renderStream(items: readonly StreamItem[]): string[] {
  const lines: string[] = [];
  let previous: ClaimView | undefined;
  for (const item of items) {
    if ('claim' in item) {
      lines.push(`claim ${canonicalJson(projectClaim(item.claim, previous))}`);
      previous = item.claim;
    } else {
      lines.push(`volume capacity=${item.volume.capacity ?? '-'} volumeAttributesClassName=${item.volume.volumeAttributesClassName ?? '-'}`);
    }
  }
  return lines;
}

/**
 * The recorded stream of one watch file: each version that differs from the one before (the watch also saw writes of
 * fields not compared), and a volume line wherever an observed PV version's capacity or class differs from the last
 * one observed, placed by its resourceVersion (the PV was read after the claim version, so it may be later).
 */
export function recordedStream(lines: readonly WatchLine[]): StreamItem[] {
  const items: StreamItem[] = [];
  let lastClaim: ClaimView | undefined;
  const volumes = new Map<number, { capacity: string | undefined; volumeAttributesClassName: string | null }>();
  for (const line of lines) {
    const view = viewOfWatchLine(line);
    if (changedSince(view, lastClaim)) {
      items.push({ rv: Number(line.rv), claim: view });
      lastClaim = view;
    }
    if (line.pv?.rv !== undefined) volumes.set(Number(line.pv.rv), { capacity: line.pv.capacity?.storage, volumeAttributesClassName: line.pv.volumeAttributesClassName ?? null });
  }
  let lastVolume: unknown;
  for (const [rv, volume] of [...volumes.entries()].sort(([a], [b]) => a - b)) {
    if (isDeepStrictEqual(volume, lastVolume)) continue;
    items.push({ rv, volume });
    lastVolume = volume;
  }
  return items.sort((a, b) => a.rv - b.rv);
}
