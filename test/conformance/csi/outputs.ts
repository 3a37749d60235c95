// Checking what a recorded read printed against the sandbox: an Event listing (`kubectl get events ... -o
// custom-columns=...`: type, reason, source, message, count and order; not the times) and a volume (`kubectl get pv`).
import { isDeepStrictEqual } from 'node:util';
import { load } from 'js-yaml';
import type { KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../../sandbox/kube/store.ts';

const eventType = mustResourceType('v1', 'Event');
const pvType = mustResourceType('v1', 'PersistentVolume');

type Json = Record<string, unknown>;

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Uids vary; so does the external-provisioner's identity, `<driver>_<host>_<uuid>`. */
export function normaliseEventText(text: string): string {
  return text.replace(uuid, '<uid>').replace(/^(\S+)_[A-Za-z0-9.-]+_<uid>$/, '$1_<host>_<uid>');
}

/** The rows of a kubectl custom-columns table, each column cut at its header's position. */
export function parseTable(output: readonly string[]): Array<Record<string, string>> {
  const header = output[0] ?? '';
  const columns = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index }));
  return output.slice(1).filter((line) => line.trim() !== '').map((line) => Object.fromEntries(columns.map((column, i) => {
    const end = columns[i + 1]?.start ?? line.length;
    return [column.name, line.slice(column.start, i === columns.length - 1 ? undefined : end).trim()];
  })));
}

const compared = ['OBJ', 'TYPE', 'REASON', 'SRC', 'MSG'];

function identity(row: Record<string, string>, columns: readonly string[]): string {
  return compared.filter((c) => columns.includes(c)).map((c) => `${c}=${normaliseEventText(row[c] ?? '')}`).join(' ');
}

function sandboxRows(kube: KubeSandbox, commandLine: string): Array<Record<string, string>> {
  const namespace = /-n (\S+)/.exec(commandLine)?.[1] ?? 'default';
  const byName = /--field-selector involvedObject\.name=(\S+)/.exec(commandLine)?.[1];
  const notKind = /--field-selector involvedObject\.kind!=(\S+)/.exec(commandLine)?.[1];
  let events: Array<Readonly<KubeObject>> = kube.store.peekList(eventType, namespace).filter((e) => {
    const involved = (e.involvedObject ?? {}) as { name?: string; kind?: string };
    return (byName === undefined || involved.name === byName) && (notKind === undefined || involved.kind !== notKind);
  });
  if (commandLine.includes('--sort-by=.lastTimestamp')) events = [...events].sort((a, b) => String(a.lastTimestamp).localeCompare(String(b.lastTimestamp)));
  return events.map((e) => ({
    COUNT: String(typeof e.count === 'number' ? e.count : 1), TYPE: String(e.type), OBJ: String((e.involvedObject as Json | undefined)?.name), REASON: String(e.reason),
    SRC: String((e.source as Json | undefined)?.component), MSG: String(e.message),
  }));
}

/** An Event listing: the same Events (by object, type, reason, source, message), with the same counts, in the same order. */
export function compareEventListing(kube: KubeSandbox, commandLine: string, output: readonly string[]): { check: string; differences: string[] } {
  const selector = /--field-selector (\S+)/.exec(commandLine)?.[1] ?? '';
  const recorded = parseTable(output);
  const actual = sandboxRows(kube, commandLine);
  const differences: string[] = [];
  const columns = (output[0] ?? '').split(/\s+/);
  const recordedIds = recorded.map((row) => identity(row, columns));
  const actualIds = actual.map((row) => identity(row, columns));
  for (const [i, id] of recordedIds.entries()) {
    const j = actualIds.indexOf(id);
    if (j < 0) differences.push(`only recorded: ${id}`);
    else if (columns.includes('COUNT') && recorded[i]?.COUNT !== actual[j]?.COUNT) differences.push(`count of ${recorded[i]?.REASON ?? ''}: recorded ${recorded[i]?.COUNT ?? ''}, sandbox ${actual[j]?.COUNT ?? ''}`);
  }
  for (const id of actualIds) if (!recordedIds.includes(id)) differences.push(`only sandbox: ${id}`);
  const common = (ids: string[], other: string[]): string[] => ids.filter((id) => other.includes(id));
  const recordedOrder = common(recordedIds, actualIds);
  const actualOrder = common(actualIds, recordedIds);
  const reasons = (ids: string[]): string => ids.map((id) => /REASON=(\S+)/.exec(id)?.[1] ?? id).join(', ');
  if (!isDeepStrictEqual(recordedOrder, actualOrder)) differences.push(`order: recorded ${reasons(recordedOrder)}; sandbox ${reasons(actualOrder)}`);
  return { check: `events ${selector}`, differences };
}

/** The fields of a volume compared: what the provisioner, the binder and the resizer set. */
function projectVolume(pv: Json): Json {
  const metadata = (pv.metadata ?? {}) as Json;
  const spec = (pv.spec ?? {}) as Json;
  const claimRef = (spec.claimRef ?? {}) as Json;
  return {
    annotations: metadata.annotations, finalizers: metadata.finalizers,
    capacity: spec.capacity, accessModes: spec.accessModes, storageClassName: spec.storageClassName, volumeMode: spec.volumeMode,
    persistentVolumeReclaimPolicy: spec.persistentVolumeReclaimPolicy, volumeAttributesClassName: spec.volumeAttributesClassName,
    claimRef: { kind: claimRef.kind, apiVersion: claimRef.apiVersion, namespace: claimRef.namespace, name: claimRef.name },
    // csi.volumeAttributes and volumeHandle are what the driver keeps for itself.
    driver: (spec.csi as Json | undefined)?.driver,
    phase: (pv.status as Json | undefined)?.phase,
  };
}

/** `kubectl get pv <name> [-o yaml]`: the volume of the same claim, as recorded, or gone as recorded. */
export function compareVolume(kube: KubeSandbox, recordedName: string, yaml: boolean, output: readonly string[], volumeClaims: Map<string, string>): { check: string; differences: string[] } {
  const claim = volumeClaims.get(recordedName);
  const check = `volume of ${claim ?? recordedName}`;
  if (claim === undefined) return { check, differences: [`no recorded claim names volume ${recordedName}`] };
  const pv = kube.store.peekList(pvType).find((v) => (v.spec?.claimRef as Json | undefined)?.name === claim);
  if ((output[0] ?? '').startsWith('Error from server (NotFound)')) return { check, differences: pv ? [`recorded gone, sandbox has ${pv.metadata.name} (${String(pv.status?.phase)})`] : [] };
  if (!pv) return { check, differences: ['recorded present, sandbox has none'] };
  if (!yaml) return { check, differences: [] };
  const expected = projectVolume(load(output.join('\n')) as Json);
  const actual = projectVolume(JSON.parse(JSON.stringify(pv)) as Json);
  const differences = Object.keys(expected).filter((k) => !isDeepStrictEqual(expected[k], actual[k]))
    .map((k) => `${k}: recorded ${JSON.stringify(expected[k])}, sandbox ${JSON.stringify(actual[k])}`);
  return { check, differences };
}

/**
 * `kubectl get pvc -n NS NAME -o jsonpath=...` with `{.field.path}` parts and `{"\n"}` line breaks: each printed value
 * (a map or list as JSON, a missing one as nothing) compared with the sandbox claim's.
 */
export function compareClaimJsonPath(kube: KubeSandbox, namespace: string, name: string, template: string, output: readonly string[]): { check: string; differences: string[] } {
  const claim = kube.store.peek(mustResourceType('v1', 'PersistentVolumeClaim'), namespace, name);
  const paths = [...template.matchAll(/\{\.([^}]+)\}/g)].map((m) => m[1] ?? '');
  const differences: string[] = [];
  for (const [i, path] of paths.entries()) {
    let value: unknown = claim;
    for (const key of path.split('.')) value = typeof value === 'object' && value !== null ? (value as Json)[key] : undefined;
    const recorded = output[i] ?? '';
    const expected: unknown = recorded === '' ? undefined : JSON.parse(recorded) as unknown;
    const actual = Array.isArray(value) && value.length === 0 ? undefined : value;
    if (!isDeepStrictEqual(expected, actual)) differences.push(`${path}: recorded ${recorded || '(nothing)'}, sandbox ${actual === undefined ? '(nothing)' : JSON.stringify(actual)}`);
  }
  return { check: `claim ${name} ${paths.join(' ')}`, differences };
}
