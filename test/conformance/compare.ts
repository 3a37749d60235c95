// Comparing one replayed exchange with its recording: the status code, a Status's reason and message, the Warning
// header, and in bodies the fields that matter to this project (canonical quantities, finalizers, ownerReferences,
// whether deletionTimestamp is set, phases, capacities, Lease and Event times by shape), each normalised first.
import { isDeepStrictEqual } from 'node:util';
import { normaliseMessage, normaliseName, normaliseText, normaliseTime } from './normalise.ts';
import { isDiscovery, isSummary, type Exchange } from './transcript.ts';

type Json = Record<string, unknown>;

export interface Replayed {
  status: number;
  warning: string | undefined;
  body: unknown;
}

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(value: unknown, ...path: string[]): unknown {
  let node = value;
  for (const key of path) node = isMap(node) ? node[key] : undefined;
  return node;
}

function defined(entries: Array<[string, unknown]>): Json {
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
}

function times(value: unknown): unknown {
  return typeof value === 'string' ? normaliseTime(value) : value;
}

/** The fields of one object that this comparison holds the sandbox to. */
export function projectObject(object: unknown, listKind?: string): Json {
  const metadata = at(object, 'metadata');
  const kind = (at(object, 'kind') as string | undefined) ?? listKind?.replace(/List$/, '');
  const name = typeof at(metadata, 'name') === 'string' ? normaliseName(at(metadata, 'name') as string, at(metadata, 'generateName')) : undefined;
  const refs = at(metadata, 'ownerReferences');
  const projection: Json = defined([
    ['kind', kind],
    ['name', name],
    ['namespace', typeof at(metadata, 'namespace') === 'string' ? normaliseText(at(metadata, 'namespace') as string) : undefined],
    ['finalizers', at(metadata, 'finalizers')],
    ['deletionTimestamp', at(metadata, 'deletionTimestamp') === undefined ? undefined : 'set'],
    ['ownerReferences', Array.isArray(refs) ? refs.map((r) => defined([['kind', at(r, 'kind')], ['name', at(r, 'name')], ['controller', at(r, 'controller')]])) : undefined],
    ['phase', at(object, 'status', 'phase')],
  ]);
  if (kind === 'PersistentVolumeClaim') {
    Object.assign(projection, defined([
      ['spec.requests.storage', at(object, 'spec', 'resources', 'requests', 'storage')],
      ['spec.volumeName', typeof at(object, 'spec', 'volumeName') === 'string' ? normaliseText(at(object, 'spec', 'volumeName') as string) : undefined],
      ['status.capacity', at(object, 'status', 'capacity')],
      ['status.allocatedResources', at(object, 'status', 'allocatedResources')],
    ]));
  }
  if (kind === 'PersistentVolume') Object.assign(projection, defined([['spec.capacity', at(object, 'spec', 'capacity')]]));
  if (kind === 'ResourceQuota') Object.assign(projection, defined([['spec.hard', at(object, 'spec', 'hard')], ['status.used', at(object, 'status', 'used')]]));
  if (kind === 'Lease') {
    const spec = at(object, 'spec');
    Object.assign(projection, defined([
      ['holderIdentity', typeof at(spec, 'holderIdentity') === 'string' ? normaliseText(at(spec, 'holderIdentity') as string) : at(spec, 'holderIdentity')],
      ['acquireTime', times(at(spec, 'acquireTime'))],
      ['renewTime', times(at(spec, 'renewTime'))],
    ]));
  }
  if (kind === 'Event') {
    Object.assign(projection, defined([
      ['firstTimestamp', times(at(object, 'firstTimestamp'))],
      ['lastTimestamp', times(at(object, 'lastTimestamp'))],
      ['eventTime', times(at(object, 'eventTime'))],
      ['reason', at(object, 'reason')],
      ['message', typeof at(object, 'message') === 'string' ? normaliseText(at(object, 'message') as string) : undefined],
    ]));
  }
  if (kind === 'StatefulSet') {
    const templates = at(object, 'spec', 'volumeClaimTemplates');
    Object.assign(projection, defined([
      ['spec.replicas', at(object, 'spec', 'replicas')],
      ['volumeClaimTemplates', Array.isArray(templates) ? templates.map((t) => `${String(at(t, 'metadata', 'name'))}=${String(at(t, 'spec', 'resources', 'requests', 'storage'))}`) : undefined],
      ['annotation', at(metadata, 'annotations', 'sts-volume-gitops.io/volume-claim-templates')],
    ]));
  }
  return projection;
}

/** Objects of a list, a Table or a watch, keyed by identity (order is not compared; generated names are). */
function projectCollection(objects: unknown[], listKind?: string): string[] {
  return objects.map((o) => JSON.stringify(projectObject(o, listKind))).sort();
}

export function projectBody(body: unknown): unknown {
  if (Array.isArray(body)) {
    return { watch: body.map((event) => ({ type: at(event, 'type'), object: at(event, 'object', 'kind') === 'Status' ? projectStatus(at(event, 'object')) : projectObject(at(event, 'object')) }))
      .map((e) => JSON.stringify(e)).sort() };
  }
  if (!isMap(body)) return body;
  if (body.kind === 'Status') return projectStatus(body);
  if (body.kind === 'Table') {
    const rows = Array.isArray(body.rows) ? body.rows : [];
    return { kind: 'Table', rows: rows.map((r) => normaliseName(String(at(r, 'object', 'metadata', 'name')), at(r, 'object', 'metadata', 'generateName'))).sort() };
  }
  if (Array.isArray(body.items)) {
    return { kind: body.kind, items: projectCollection(body.items, typeof body.kind === 'string' ? body.kind : undefined), continue: at(body, 'metadata', 'continue') === undefined ? undefined : 'set' };
  }
  return projectObject(body);
}

function projectStatus(status: unknown): Json {
  return defined([
    ['status', at(status, 'status')],
    ['reason', at(status, 'reason')],
    ['code', at(status, 'code')],
    ['message', typeof at(status, 'message') === 'string' ? normaliseMessage(at(status, 'message') as string) : undefined],
  ]);
}

/** The differences between a recorded exchange and its replay; empty when they agree. */
export function compareExchange(recorded: Exchange, replayed: Replayed): string[] {
  const differences: string[] = [];
  if (recorded.status !== replayed.status) differences.push(`status: recorded ${recorded.status}, sandbox ${replayed.status}`);
  // Reduced bodies (discovery, OpenAPI, unchanged kubectl polls) compare by status only.
  if (isDiscovery(recorded.path) || isSummary(recorded.responseBody)) return differences;
  const recordedWarning = recorded.responseWarning === undefined ? undefined : normaliseText(recorded.responseWarning);
  const replayedWarning = replayed.warning === undefined ? undefined : normaliseText(replayed.warning);
  if (recordedWarning !== replayedWarning) differences.push(`warning: recorded ${String(recordedWarning)}, sandbox ${String(replayedWarning)}`);
  const expected = projectBody(recorded.responseBody);
  const actual = projectBody(replayed.body);
  if (!isDeepStrictEqual(expected, actual)) differences.push(...describe('', expected, actual));
  return differences;
}

function describe(path: string, expected: unknown, actual: unknown): string[] {
  if (isMap(expected) && isMap(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((k) => (isDeepStrictEqual(expected[k], actual[k]) ? [] : describe(path === '' ? k : `${path}.${k}`, expected[k], actual[k])));
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.every((e) => typeof e === 'string') && actual.every((a) => typeof a === 'string')) {
    const missing = (expected).filter((e) => !(actual).includes(e));
    const extra = (actual).filter((a) => !(expected).includes(a));
    return [`${path}: only recorded ${JSON.stringify(missing)}; only sandbox ${JSON.stringify(extra)}`];
  }
  return [`${path}: recorded ${JSON.stringify(expected)}, sandbox ${JSON.stringify(actual)}`];
}
