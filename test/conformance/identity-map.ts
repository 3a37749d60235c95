// What the recorded server and the sandbox name differently for the same thing: uids, resourceVersions, continue
// tokens and generated names. Learned from each pair of answers (recorded vs sandbox), then used to rewrite the
// recorded requests that quote them (a PVC patch's resourceVersion guard, a DELETE's uid precondition, a continue
// token), so the sandbox is asked what the real server was asked.
type Json = Record<string, unknown>;

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metadataOf(value: unknown): Json | undefined {
  return isMap(value) && isMap(value.metadata) ? value.metadata : undefined;
}

function objectKey(value: unknown): string | undefined {
  const metadata = metadataOf(value);
  if (!metadata || typeof metadata.name !== 'string') return undefined;
  const kind = isMap(value) && typeof value.kind === 'string' ? value.kind : '';
  return `${kind}/${typeof metadata.namespace === 'string' ? metadata.namespace : ''}/${metadata.name}`;
}

export class IdentityMap {
  private readonly uids = new Map<string, string>();
  private readonly resourceVersions = new Map<string, string>();
  private readonly continueTokens = new Map<string, string>();
  private readonly names = new Map<string, string>();

  /** Pairs what the recorded answer and the sandbox's answer say about the same objects. */
  learn(recorded: unknown, actual: unknown): void {
    if (Array.isArray(recorded) && Array.isArray(actual)) {
      // Watch events: pair by object identity.
      this.learnItems(recorded.map((e) => (isMap(e) ? e.object : undefined)), actual.map((e) => (isMap(e) ? e.object : undefined)));
      return;
    }
    if (!isMap(recorded) || !isMap(actual)) return;
    const recordedMeta = metadataOf(recorded);
    const actualMeta = metadataOf(actual);
    if (recordedMeta && actualMeta) {
      this.pair(this.uids, recordedMeta.uid, actualMeta.uid);
      this.pair(this.resourceVersions, recordedMeta.resourceVersion, actualMeta.resourceVersion);
      this.pair(this.continueTokens, recordedMeta.continue, actualMeta.continue);
      if (typeof recordedMeta.generateName === 'string') this.pair(this.names, recordedMeta.name, actualMeta.name);
      const recordedRefs = Array.isArray(recordedMeta.ownerReferences) ? recordedMeta.ownerReferences as Json[] : [];
      const actualRefs = Array.isArray(actualMeta.ownerReferences) ? actualMeta.ownerReferences as Json[] : [];
      for (const ref of recordedRefs) {
        const match = actualRefs.find((a) => a.kind === ref.kind && a.name === ref.name);
        if (match) this.pair(this.uids, ref.uid, match.uid);
      }
    }
    if (isMap(recorded.details) && isMap(actual.details)) this.pair(this.uids, recorded.details.uid, actual.details.uid);
    if (Array.isArray(recorded.items) && Array.isArray(actual.items)) this.learnItems(recorded.items, actual.items, recorded.kind, actual.kind);
    if (Array.isArray(recorded.rows) && Array.isArray(actual.rows)) {
      this.learnItems(recorded.rows.map((r) => (isMap(r) ? r.object : undefined)), actual.rows.map((r) => (isMap(r) ? r.object : undefined)));
    }
  }

  private learnItems(recorded: unknown[], actual: unknown[], recordedListKind?: unknown, actualListKind?: unknown): void {
    const itemKind = (listKind: unknown, item: unknown): unknown => (isMap(item) && item.kind === undefined && typeof listKind === 'string'
      ? { ...item, kind: listKind.replace(/List$/, '') } : item);
    const byKey = new Map<string, unknown>();
    for (const item of actual) {
      const key = objectKey(itemKind(actualListKind, item));
      if (key !== undefined) byKey.set(key, item);
    }
    for (const item of recorded) {
      const key = objectKey(itemKind(recordedListKind, item));
      const match = key === undefined ? undefined : byKey.get(key);
      if (match !== undefined) this.learn(item, match);
    }
  }

  private pair(map: Map<string, string>, recorded: unknown, actual: unknown): void {
    if (typeof recorded !== 'string' || typeof actual !== 'string' || recorded === '' || map.has(recorded)) return;
    map.set(recorded, actual);
  }

  /** The recorded request path with its generated names, continue token and resourceVersion translated. */
  rewritePath(path: string): string {
    const [pathname = '', query] = path.split('?', 2) as [string, string | undefined];
    const segments = pathname.split('/').map((segment) => this.names.get(decodeURIComponent(segment)) ?? segment);
    if (query === undefined) return segments.join('/');
    const params = new URLSearchParams(query);
    const token = params.get('continue');
    if (token !== null && this.continueTokens.has(token)) params.set('continue', this.continueTokens.get(token) ?? token);
    const resourceVersion = params.get('resourceVersion');
    if (resourceVersion !== null && this.resourceVersions.has(resourceVersion)) params.set('resourceVersion', this.resourceVersions.get(resourceVersion) ?? resourceVersion);
    return `${segments.join('/')}?${params.toString()}`;
  }

  /** The recorded request body with uids (also inside strings) and resourceVersions translated. */
  rewriteBody(body: unknown): unknown {
    if (typeof body === 'string') return body.replace(uuidPattern, (uid) => this.uids.get(uid) ?? uid);
    if (Array.isArray(body)) return body.map((item) => this.rewriteBody(item));
    if (!isMap(body)) return body;
    return Object.fromEntries(Object.entries(body).map(([key, value]) => {
      if (key === 'resourceVersion' && typeof value === 'string') return [key, this.resourceVersions.get(value) ?? value];
      return [key, this.rewriteBody(value)];
    }));
  }
}
