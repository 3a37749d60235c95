// Replays one recorded transcript against a fresh Kubernetes sandbox: the same requests in `seq` order, the sandbox's
// clock set to each request's recorded time, and between requests only the controllers the recorded cluster ran
// advanced until nothing changes.
import type { ControllerName } from '../../sandbox/kube/controllers/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, resourceTypeOf, type KubeObject } from '../../sandbox/kube/store.ts';
import { compareExchange, type Replayed } from './compare.ts';
import { IdentityMap } from './identity-map.ts';
import { isSummary, type Exchange } from './transcript.ts';

export interface ExchangeOutcome {
  exchange: Exchange;
  differences: string[];
}

/**
 * The recorded clusters' controllers (no CSI driver: no provisioner, kubelet or resizer); the v1.34.9 one also ran the
 * PV binder and the expand controller.
 */
const recordedControllers: Record<string, readonly ControllerName[]> = {
  '1.26': ['namespace', 'serviceaccount', 'statefulset', 'garbage-collector', 'volume-protection', 'resourcequota'],
  '1.34': ['namespace', 'serviceaccount', 'statefulset', 'garbage-collector', 'volume-protection', 'persistentvolume-binder', 'volume-expand', 'resourcequota'],
};
/** How late each recorded garbage collector finished an orphan delete: 15-45 ms on v1.26.5, 65-89 ms on v1.34.9. */
const garbageCollectorDelayMs: Record<string, number> = { '1.26': 30, '1.34': 75 };
/** Any fixed instant: only differences of the recorded `t` matter. */
const clockBase = Date.parse('2026-11-23T13:00:00Z');
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** Replays `exchanges` against a sandbox playing `version` (`1.26`, `1.34`), the recorded server's. */
export async function replayTranscript(exchanges: Exchange[], version: string): Promise<ExchangeOutcome[]> {
  let nowMs = clockBase;
  const controllers = recordedControllers[version];
  if (!controllers) throw new Error(`no recorded cluster of version ${version}`);
  const sandbox = await startKubeSandbox({ version, now: () => new Date(nowMs), controllers, garbageCollectorDelayMs: garbageCollectorDelayMs[version] ?? 30 });
  try {
    seedPreexisting(sandbox, exchanges);
    const token = sandbox.kubeConfig().getCurrentUser()?.token ?? '';
    const identities = new IdentityMap();
    const outcomes: ExchangeOutcome[] = [];
    const watches: Array<{ exchange: Exchange; endsAt: number; answer: Promise<Replayed> }> = [];
    const finishWatches = async (until: number): Promise<void> => {
      for (const watch of watches.filter((w) => w.endsAt <= until)) {
        watches.splice(watches.indexOf(watch), 1);
        const replayed = await watch.answer;
        outcomes.push({ exchange: watch.exchange, differences: compareExchange(watch.exchange, replayed) });
      }
    };
    for (const exchange of exchanges) {
      await finishWatches(exchange.t);
      nowMs = clockBase + exchange.t;
      settle(sandbox);
      const response = await send(sandbox, token, exchange, identities);
      if (exchange.watch === true) {
        // A watch stays open while later requests run (the recorder wrote it when it ended). Its headers are sent
        // once it is registered, so the requests that follow are seen by it.
        watches.push({ exchange, endsAt: exchange.t + exchange.durationMs, answer: readAnswer(response, true) });
        continue;
      }
      const replayed = await readAnswer(response, false);
      outcomes.push({ exchange, differences: compareExchange(exchange, replayed) });
      if (!isSummary(exchange.responseBody)) identities.learn(exchange.responseBody, replayed.body);
    }
    await finishWatches(Number.POSITIVE_INFINITY);
    return outcomes.sort((a, b) => a.exchange.seq - b.exchange.seq);
  } finally {
    await sandbox.close();
  }
}

/**
 * Runs the controllers until a tick changes nothing (bounded, so a controller that never settles is reported): the
 * recorded components had long settled before the next command. Both replays (this one and csi/play.ts) use it.
 */
export function settle(sandbox: KubeSandbox): void {
  for (let round = 0; round < 100; round++) {
    const before = sandbox.store.currentResourceVersion;
    sandbox.tick();
    if (sandbox.store.currentResourceVersion === before) return;
  }
  throw new Error('the sandbox controllers did not settle within 100 ticks');
}

/**
 * Cluster-scoped objects the transcript reads before (or without) creating them existed before the recording began
 * (the StorageClasses of an earlier script): they are part of the starting state, created as they were read.
 */
function seedPreexisting(sandbox: KubeSandbox, exchanges: Exchange[]): void {
  const created = new Set<string>();
  const namespaceType = mustResourceType('v1', 'Namespace');
  for (const exchange of exchanges) {
    const body = exchange.responseBody as { kind?: string; metadata?: { name?: string }; items?: unknown[] } | null;
    if (body === null || typeof body !== 'object' || isSummary(body)) continue;
    const objects: KubeObject[] = [];
    if (exchange.status === 201 && body.metadata?.name !== undefined) created.add(`${body.kind ?? ''}/${body.metadata.name}`);
    if (exchange.status === 200 && Array.isArray(body.items)) objects.push(...(body.items as KubeObject[]).map((item) => ({ ...item, kind: (body.kind ?? '').replace(/List$/, '') })));
    else if (exchange.status === 200 && body.metadata !== undefined && body.kind !== 'Status') objects.push(body as KubeObject);
    for (const object of objects) {
      const type = resourceTypeOf(object.apiVersion ?? apiVersionOfPath(exchange.path), object.kind);
      if (!type || type.namespaced || type === namespaceType || created.has(`${object.kind}/${object.metadata.name}`)) continue;
      if (sandbox.store.get(type, undefined, object.metadata.name)) continue;
      const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, managedFields: _managed, ...metadata } = object.metadata;
      sandbox.store.create(type, { ...object, metadata: { ...metadata, name: object.metadata.name } });
    }
  }
}

function apiVersionOfPath(path: string): string {
  const match = /^\/apis\/([^/]+\/[^/]+)\//.exec(path);
  return match?.[1] ?? 'v1';
}

/** Sends the recorded request, translated; resolves when the answer's headers arrive. */
async function send(sandbox: KubeSandbox, token: string, exchange: Exchange, identities: IdentityMap): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  const recordedKind = (exchange.responseBody as { kind?: unknown } | null)?.kind;
  headers.Accept = recordedKind === 'Table' ? tableAccept : 'application/json';
  let body: string | undefined;
  if (exchange.requestBody !== null && exchange.requestBody !== undefined) {
    const rewritten = identities.rewriteBody(exchange.requestBody);
    body = typeof rewritten === 'string' ? rewritten : JSON.stringify(rewritten);
  }
  if (exchange.requestContentType !== null) headers['Content-Type'] = exchange.requestContentType;
  return fetch(`${sandbox.url}${identities.rewritePath(exchange.path)}`, { method: exchange.method, headers, body });
}

async function readAnswer(response: Response, watch: boolean): Promise<Replayed> {
  const text = await response.text();
  return { status: response.status, warning: response.headers.get('warning') ?? undefined, body: parseAnswer(text, watch) };
}

function parseAnswer(text: string, watch: boolean): unknown {
  if (watch) return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
