// Watches, as a list request with `watch=true` is served by a real API server: one JSON event a line (ADDED, MODIFIED,
// DELETED) for the objects the namespace and selectors match, from a resourceVersion on. Objects that stop or start
// matching a selector are seen leaving (DELETED) or arriving (ADDED). A resourceVersion older than the history the hub
// keeps answers an ERROR event with 410 Expired, so clients relist, as they must on a real cluster. kubectl uses watches
// to wait for deletions and for `get -w`; client-node's Watch and informers use them too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-errors.ts';
import { selectorsOf } from './selectors.ts';
import type { KubeObject, ObjectStore, ResourceType, StoreChange } from './store.ts';

export interface WatchRequest {
  type: ResourceType;
  namespace: string | undefined;
  query: URLSearchParams;
  /** How each event's object is sent (kubectl asks for Table rows); the object itself by default. */
  present?: ((object: KubeObject, first: boolean) => unknown) | undefined;
  /** Mark the end of the initial ADDED events with a bookmark when bookmarks are allowed (v1.34 does). */
  initialEventsEndBookmark?: boolean;
}

export function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}

export class WatchHub {
  private readonly history: StoreChange[] = [];
  /** Every change after this resourceVersion is in `history`. */
  private oldestReplayable: number;

  constructor(private readonly store: ObjectStore, private readonly capacity = 5000) {
    this.oldestReplayable = Number(store.currentResourceVersion);
    store.onChange((change) => {
      this.history.push(change);
      if (this.history.length > this.capacity) {
        const dropped = this.history.shift();
        this.oldestReplayable = Number(dropped?.object.metadata.resourceVersion ?? this.oldestReplayable);
      }
    });
  }

  /** Streams events until the client goes away or `timeoutSeconds` passes. Bad requests throw before anything is sent. */
  serve(request: IncomingMessage, response: ServerResponse, { type, namespace, query, present, initialEventsEndBookmark = false }: WatchRequest): void {
    const selected = selectorsOf(query);
    const matches = (object: KubeObject | undefined): boolean => object !== undefined
      && (namespace === undefined || !type.namespaced || object.metadata.namespace === namespace) && selected(object);
    const since = query.get('resourceVersion') ?? '';
    const fromNow = since === '' || since === '0';
    if (!fromNow && !/^\d+$/.test(since)) throw new ApiError(400, 'BadRequest', `resourceVersion: Invalid value: ${JSON.stringify(since)}: must be a number`);

    response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache' });
    response.flushHeaders(); // clients wait for the headers before they act; events may be long in coming
    let first = true;
    const send = (eventType: string, object: KubeObject | Record<string, unknown>): void => {
      if (response.destroyed) return;
      const shown = present && eventType !== 'ERROR' ? present(object as KubeObject, first) : object;
      first = false;
      response.write(`${JSON.stringify({ type: eventType, object: shown })}\n`);
    };
    // Matching before and after the change tells the event: still matching is MODIFIED, newly ADDED, no longer DELETED.
    const forward = (change: StoreChange, after: number): void => {
      if (change.type !== type || Number(change.object.metadata.resourceVersion) <= after) return;
      const before = matches(change.kind === 'deleted' ? change.object : change.previous);
      const now = change.kind !== 'deleted' && matches(change.object);
      const eventType = now ? (before ? 'MODIFIED' : 'ADDED') : before ? 'DELETED' : undefined;
      if (eventType) send(eventType, change.object);
    };

    const after = Number(fromNow ? this.store.currentResourceVersion : since);
    // Asked for bookmarks, a watch the server is about to close tells the client where it stands.
    const bookmarks = query.get('allowWatchBookmarks') === 'true';
    const bookmark = (metadata: Record<string, unknown>): void => {
      if (!response.destroyed) response.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: type.kind, apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`, metadata } })}\n`);
    };
    if (fromNow) {
      // No starting point: the current state as ADDED events, then what changes.
      let newest = 0;
      for (const object of this.store.list(type, namespace)) {
        if (!matches(object)) continue;
        send('ADDED', object);
        newest = Math.max(newest, Number(object.metadata.resourceVersion ?? 0));
      }
      if (bookmarks && initialEventsEndBookmark && !present) {
        bookmark({ resourceVersion: String(newest || after), annotations: { 'k8s.io/initial-events-end': 'true' } });
      }
    } else if (after < this.oldestReplayable) {
      send('ERROR', new ApiError(410, 'Expired', `too old resource version: ${after} (${this.oldestReplayable + 1})`).toStatus());
      response.end();
      return;
    } else {
      for (const change of this.history) forward(change, after);
    }
    const stop = this.store.onChange((change) => forward(change, after));
    const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '0');
    const close = (): void => {
      if (bookmarks) bookmark({ resourceVersion: this.store.currentResourceVersion, creationTimestamp: null });
      response.end();
    };
    const timer = timeoutSeconds > 0 ? setTimeout(close, timeoutSeconds * 1000) : undefined;
    timer?.unref();
    const finish = (): void => {
      stop();
      if (timer) clearTimeout(timer);
    };
    request.on('close', finish);
    response.on('close', finish);
  }
}
