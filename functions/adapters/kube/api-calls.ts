// How KubeCluster calls client-node: every call's failure as a ClusterError with the server's words, lists read page
// by page, and objects read (and StatefulSets sent) as the server's own JSON.
import {
  ApiException, Observable, PatchStrategy, SelfDecodingBody, setHeaderOptions, type ConfigurationOptions, type ObservableMiddleware, type V1Status, type VersionApi, type VersionInfo,
} from '@kubernetes/client-node';
import type { JsonObject } from '../../domain/live-state.ts';
import { ClusterError } from '../../engine/ports.ts';
import { describeMissingPermission, parseMissingPermission } from './forbidden.ts';
import { networkFailureOf } from './network-failure.ts';

/** Sends a patch as a JSON merge patch (client-node's default is a JSON patch). */
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Objects per LIST page: kubectl's default chunk size. */
export const listPageSize = 500;

/**
 * Reads a list page by page with `limit` and `continue`. A continue token that expired meanwhile (410 Gone, the
 * server compacted past it) restarts the list once from the beginning, as client-go's pager does.
 */
export async function listPages<T>(
  pageSize: number,
  readPage: (page: { limit: number; _continue?: string }) => Promise<{ items: T[]; next: string | undefined }>,
): Promise<T[]> {
  for (let attempt = 0; ; attempt++) {
    const items: T[] = [];
    let next: string | undefined;
    try {
      do {
        const page = await readPage({ limit: pageSize, ...(next ? { _continue: next } : {}) });
        for (const item of page.items) items.push(item);
        next = page.next || undefined;
      } while (next);
      return items;
    } catch (error) {
      if (!(attempt === 0 && next !== undefined && error instanceof ClusterError && error.status === 410)) throw error;
    }
  }
}

// client-node's models keep only the fields they know, when reading and when sending. A StatefulSet is sent back whole
// to update its template, so it travels as the server's own JSON: a field newer than the installed client would
// otherwise vanish, and one vanishing from the pod template changes the revision hash and restarts every pod.

/**
 * Runs a call and returns the JSON the server sent. client-node is handed an empty object to deserialise in its
 * place: its typed copy of a list page (every field of every object, dates as Date) would cost CPU and memory for
 * nothing, since the objects are mapped from this JSON. Error answers reach client-node untouched (ApiException).
 */
export async function wireJson(request: (options: ConfigurationOptions) => Promise<unknown>, send?: JsonObject): Promise<JsonObject> {
  let json: JsonObject | undefined;
  const keepBody: ObservableMiddleware = {
    pre: (context) => new Observable(Promise.resolve(context)),
    post: (context) => new Observable(context.body.text().then((text) => {
      const success = context.httpStatusCode >= 200 && context.httpStatusCode < 300;
      if (success) json = JSON.parse(text) as JsonObject;
      context.body = new SelfDecodingBody(Promise.resolve(Buffer.from(success ? '{}' : text, 'utf8')));
      return context;
    })),
  };
  // With `send`, the body goes out as it is (see sendingWireJson) and the answer is kept the same way.
  const sending = send === undefined ? [] : sendingWireJson(send).middleware ?? [];
  await call(() => request({ middleware: [...sending, keepBody], middlewareMergeStrategy: 'append' }));
  if (json === undefined) throw new ClusterError('the API server answered without a JSON body', undefined, undefined);
  return json;
}

/**
 * A whole list read page by page (see listPages) from the server's JSON, each page mapped as it arrives: one page's
 * objects at most are alive at a time, never the whole list.
 */
export function listWire<T>(
  pageSize: number,
  readPage: (page: { limit: number; _continue?: string }, options: ConfigurationOptions) => Promise<unknown>,
  map: (json: JsonObject) => T,
): Promise<T[]> {
  return listPages(pageSize, async (page) => {
    const { items, next } = await wireListPage((options) => readPage(page, options));
    return { items: items.map(map), next };
  });
}

/** One page of a list as the server sent it: its items and the continue token. */
async function wireListPage(request: (options: ConfigurationOptions) => Promise<unknown>): Promise<{ items: JsonObject[]; next: string | undefined }> {
  const list = await wireJson(request);
  // An empty list may come as `items: null` from servers that encode a nil slice.
  if (list.items !== null && !Array.isArray(list.items)) throw new ClusterError('the API server answered a list without items', undefined, undefined);
  const metadata = (list.metadata ?? {}) as { continue?: unknown };
  return { items: (list.items ?? []) as JsonObject[], next: typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined };
}

/** Sends `body` as it is, in place of client-node's serialisation of its typed copy. */
function sendingWireJson(body: JsonObject): ConfigurationOptions {
  const sendAsIs: ObservableMiddleware = {
    pre: (context) => {
      context.setBody(JSON.stringify(body));
      return new Observable(Promise.resolve(context));
    },
    post: (context) => new Observable(Promise.resolve(context)),
  };
  return { middleware: [sendAsIs], middlewareMergeStrategy: 'append' };
}

/** Runs one API call and turns client-node's ApiException (body = raw Status JSON) into a ClusterError. */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toClusterError(error);
  }
}

export function toClusterError(error: unknown): ClusterError {
  if (error instanceof ClusterError) return error;
  if (error instanceof ApiException) {
    const apiError = error as ApiException<unknown>;
    const status = parseStatus(apiError.body);
    const missing = apiError.code === 403 && status?.message ? parseMissingPermission(status.message) : undefined;
    if (missing) return new ClusterError(describeMissingPermission(missing), apiError.code, status?.reason);
    // kube-apiserver's 401 says only "Unauthorized" (client-node keeps no body for it): the credentials were refused.
    if (apiError.code === 401) return new ClusterError('the API server refused the credentials (401 Unauthorized): the token or client certificate is not valid there', 401, 'Unauthorized');
    return new ClusterError(status?.message || `HTTP ${apiError.code}${status?.reason ? ` ${status.reason}` : ''}`, apiError.code, status?.reason);
  }
  const network = networkFailureOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ClusterError(`API server unreachable: ${network?.detail ?? message}`, undefined, undefined, network?.kind);
}

/**
 * `GET /version` as kube-apiserver answers it (open to every authenticated identity). Any other answer (a 404, a page
 * that is not the version JSON) means `server` is not a Kubernetes API server: said so, not as an empty reason.
 */
export async function readVersionInfo(api: VersionApi, server: string): Promise<VersionInfo> {
  let info: VersionInfo;
  try {
    info = await api.getCode();
  } catch (error) {
    const failure = toClusterError(error);
    // A server's refusal or trouble is said as it is; any other status for /version is no Kubernetes API server's.
    const serverSaid = failure.status === undefined || [401, 403, 429].includes(failure.status) || failure.status >= 500;
    if (serverSaid) throw failure;
    throw notKubernetes(server, `HTTP ${failure.status}`, failure.status);
  }
  // client-node reads an HTML page or other JSON as an empty VersionInfo.
  if (typeof info.gitVersion !== 'string' || typeof info.major !== 'string') throw notKubernetes(server, 'something other than the version JSON', undefined);
  return info;
}

function notKubernetes(server: string, answer: string, status: number | undefined): ClusterError {
  return new ClusterError(`${server} is not a Kubernetes API server: GET /version answered ${answer}, not the server's version`, status, undefined, 'not-kubernetes');
}

function parseStatus(body: unknown): V1Status | undefined {
  if (typeof body === 'object' && body !== null) return body;
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body) as V1Status;
  } catch {
    return { message: body };
  }
}
