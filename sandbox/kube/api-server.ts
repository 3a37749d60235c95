// The sandbox's HTTP API: discovery, get/list/create/update/patch/delete with the real semantics this project relies
// on (resourceVersion conflicts, dry runs, preconditions, orphan deletes with finalizers, status subresources), over
// an ObjectStore. Every error is a v1 Status like the real server's.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { ApiError, badRequest, cannotBeHandled, invalidPatch, notFound } from './api-errors.ts';
import { readAccessReview } from './access-review-protobuf.ts';
import { decodeProtobufObject, decodesProtobuf } from './object-protobuf.ts';
import { protobufMediaType } from './protobuf.ts';
import type { AccessControl } from './authorization.ts';
import { DecodeError, decodeObject } from './decode.ts';
import { duplicateFieldsOf, recordDuplicateFields } from './duplicate-fields.ts';
import { dropReply, type FaultInjector } from './faults.ts';
import { dropUnknownFields, openApiResponse, type NewerServerFields } from './openapi.ts';
import { toTable, wantsTable } from './tables.ts';
import { serveTokenRequest, tokenSubresource } from './token-request.ts';
import { isWatch, WatchHub } from './watch.ts';
import { applyPatch } from './patch.ts';
import type { RequestLog } from './request-log.ts';
import { selectorsOf } from './selectors.ts';
import { create, list, remove, update } from './verbs.ts';
import type { ServerVersion } from './server-version.ts';
import {
  apiVersionOf, findResourceType, resourceTypes, servedBy, type KubeObject, type ObjectStore, type ResourceType,
} from './store.ts';

export interface ApiServerContext {
  store: ObjectStore;
  faults: FaultInjector;
  requestLog: RequestLog;
  /** Who is asking and what they may do (authorization.ts): tokens, impersonation, RBAC. */
  access: AccessControl;
  /** Feature gates the sandbox emulates (e.g. StatefulSetUpdateVolumeClaimTemplate, KEP-4650, off everywhere today). */
  featureGates: ReadonlySet<string>;
  /** Fields this server knows beyond client-node's models (playing a newer cluster). */
  newerFields: NewerServerFields;
  /** The Kubernetes version this server plays (server-version.ts): its words, defaults and served types. */
  server: ServerVersion;
}

interface Route {
  type: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}


export function createApiServer(ctx: ApiServerContext): Server {
  const watches = new WatchHub(ctx.store);
  return createServer((request, response) => {
    handle(ctx, watches, request, response).catch((error: unknown) => {
      const apiError = error instanceof ApiError ? error : new ApiError(500, 'InternalError', `Internal error occurred: ${error instanceof Error ? error.message : String(error)}`);
      send(response, apiError.code, apiError.toStatus());
    });
  });
}

function send(response: ServerResponse, code: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

/**
 * The sandbox decodes JSON, and protobuf only for the creates kubectl's typed commands send (`kubectl create namespace`,
 * `serviceaccount`, `configmap`: object-protobuf.ts); a real server decodes protobuf for every built-in kind. Other
 * formats get the 415 a server without that codec answers, rather than a misleading "invalid JSON".
 */
function isProtobufCreate(method: string, mediaType: string, type: ResourceType): boolean {
  return method === 'POST' && mediaType === protobufMediaType && decodesProtobuf(type.kind);
}

function checkBodyFormat(method: string, mediaType: string, type: ResourceType): void {
  if (method === 'PATCH' || mediaType === '' || mediaType === 'application/json' || mediaType.endsWith('+json') || isProtobufCreate(method, mediaType, type)) return;
  throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json`);
}

async function readBody(request: IncomingMessage, type: ResourceType): Promise<unknown> {
  const method = request.method ?? 'GET';
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  checkBodyFormat(method, mediaType, type);
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (isProtobufCreate(method, mediaType, type)) {
    try {
      return decodeProtobufObject(Buffer.concat(chunks), type.kind);
    } catch (error) {
      throw badRequest(`the server could not read the request body: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    const body = JSON.parse(text) as unknown;
    recordDuplicateFields(body, text);
    return body;
  } catch {
    if (request.method === 'PATCH') throw badRequest(`error decoding patch: ${goJsonError(text)}`);
    throw badRequest(`the server could not read the request body: invalid JSON`);
  }
}

/** encoding/json's words for the first problem in `text` (the two cases a truncated or garbled body shows). */
function goJsonError(text: string): string {
  const trimmed = text.trim();
  if (trimmed !== '' && !/^[[{"\-0-9tfn]/.test(trimmed)) return `invalid character '${trimmed[0] ?? ''}' looking for beginning of value`;
  return 'unexpected end of JSON input';
}

async function handle(ctx: ApiServerContext, watches: WatchHub, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://sandbox');
  const method = request.method ?? 'GET';
  const user = ctx.access.identify(request.headers);
  if (user instanceof ApiError) {
    send(response, user.code, user.toStatus());
    return;
  }
  const openApi = method === 'GET' ? openApiResponse(url.pathname, ctx.server) : undefined;
  if (openApi !== undefined) {
    ctx.requestLog.record({ method, verb: 'get', resource: 'openapi', dryRun: false, status: 200 });
    send(response, 200, openApi.text, openApi.etag === undefined ? {} : { ETag: openApi.etag, 'Cache-Control': 'public, immutable' });
    return;
  }
  const discovery = discoveryDocument(url.pathname, ctx.server);
  if (discovery !== undefined && method === 'GET') {
    ctx.requestLog.record({ method, verb: 'get', resource: 'discovery', dryRun: false, status: 200 });
    send(response, 200, discovery);
    return;
  }
  const route = parseRoute(url.pathname, ctx.server);
  if (!route) {
    send(response, 404, new ApiError(404, 'NotFound', 'the server could not find the requested resource').toStatus());
    return;
  }
  const verb = verbOf(method, route, url.searchParams);
  const dryRun = url.searchParams.getAll('dryRun').includes('All');
  const denied = ctx.access.authorize(user, { verb, group: route.type.group, resource: route.type.plural, subresource: route.subresource, namespace: route.namespace, name: route.name });
  if (denied) {
    ctx.requestLog.record({ method, verb, resource: route.type.plural, subresource: route.subresource, namespace: route.namespace, name: route.name, dryRun, status: 403 });
    send(response, 403, denied.toStatus());
    return;
  }
  if (route.type.group === 'authorization.k8s.io' && method === 'POST') {
    ctx.requestLog.record({ method, verb, resource: route.type.plural, dryRun, status: 201 });
    send(response, 201, ctx.access.review(user, await readAccessReview(request)));
    return;
  }
  const fault = ctx.faults.match(method, route.type.plural, route.subresource);
  if (fault) {
    if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault.failure === 'reset') {
      ctx.requestLog.record({ method, verb, resource: route.type.plural, subresource: route.subresource, namespace: route.namespace, name: route.name, dryRun, status: 0 });
      request.socket.destroy();
      return;
    }
    if (fault.failure === 'drop-reply') dropReply(request, response);
    else if (fault.failure !== undefined) {
      const error = faultError(fault.failure);
      ctx.requestLog.record({ method, verb, resource: route.type.plural, subresource: route.subresource, namespace: route.namespace, name: route.name, dryRun, status: error.code });
      send(response, error.code, error.toStatus(), error.code === 429 ? { 'Retry-After': '1' } : {});
      return;
    }
  }
  let status = 200;
  try {
    if (verb === 'watch') {
      const table = wantsTable(request.headers.accept);
      watches.serve(request, response, {
        type: route.type, namespace: route.namespace, query: url.searchParams,
        // As Tables, the first event carries the column definitions and the rest only rows.
        present: table ? (object, first) => toTable(route.type, [object], new Date(ctx.store.timestamp()), object.metadata.resourceVersion ?? '', first) : undefined,
        initialEventsEndBookmark: ctx.server.initialEventsEndBookmark,
      });
      return;
    }
    if (route.type.plural === 'serviceaccounts' && route.subresource === 'token') {
      const answer = await serveTokenRequest(ctx, method, route, request); // JSON or protobuf, as kubectl sends it
      status = 201;
      send(response, status, answer);
      return;
    }
    const body = method === 'GET' ? undefined : await readBody(request, route.type);
    const result = serve(ctx, method, route, url.searchParams, body, request.headers['content-type'] ?? '', dryRun);
    if (method === 'GET' && wantsTable(request.headers.accept)) result.body = asTable(ctx, route.type, result.body as KubeObject);
    status = result.code;
    // Like the real server's warning headers: kubectl prints each as `Warning: ...`.
    const warnings = result.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    send(response, result.code, result.body, warnings.length > 0 ? { Warning: warnings } : {});
  } catch (error) {
    status = error instanceof ApiError ? error.code : 500;
    throw error;
  } finally {
    ctx.requestLog.record({ method, verb, resource: route.type.plural, subresource: route.subresource, namespace: route.namespace, name: route.name, dryRun, status });
  }
}

/** A get or list answer as a Table for kubectl (the list keeps its paging metadata). */
function asTable(ctx: ApiServerContext, type: ResourceType, answer: KubeObject): Record<string, unknown> {
  const now = new Date(ctx.store.timestamp());
  if (!Array.isArray(answer.items)) return toTable(type, [answer], now, answer.metadata.resourceVersion ?? '');
  const table = toTable(type, answer.items as KubeObject[], now, answer.metadata.resourceVersion ?? '');
  return { ...table, metadata: answer.metadata };
}

function servedTypes(server: ServerVersion): ResourceType[] {
  return resourceTypes.filter((t) => servedBy(t, server.minor));
}

function faultError(code: number): ApiError {
  if (code === 429) return new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
  if (code === 503) return new ApiError(503, 'ServiceUnavailable', 'The server is currently unable to handle the request');
  if (code === 504) return new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout');
  return new ApiError(code, 'InternalError', 'Internal error occurred: injected fault');
}

function verbOf(method: string, route: Route, query: URLSearchParams): string {
  if (method === 'GET' && route.name === undefined) return isWatch(query) ? 'watch' : 'list';
  if (method === 'GET') return 'get';
  if (method === 'DELETE' && route.name === undefined) return 'deletecollection';
  return { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method] ?? method.toLowerCase();
}

function parseRoute(pathname: string, server: ServerVersion): Route | undefined {
  const parts = pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(group === '' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const type = findResourceType(group, version, rest[0] ?? '');
  if (!type || !servedBy(type, server.minor)) return undefined;
  if (type.namespaced === false && namespace !== undefined) return undefined;
  return { type, namespace, name: rest[1], subresource: rest[2] };
}

interface Result {
  code: number;
  body: unknown;
  warnings: string[];
}

type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The `fieldValidation` directive of a write; Warn when absent, as the recorded v1.26 server does. */
function fieldValidationOf(query: URLSearchParams, method: string): FieldValidation {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  const options = { POST: 'CreateOptions', PUT: 'UpdateOptions', PATCH: 'PatchOptions' }[method] ?? 'CreateOptions';
  const message = `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`;
  throw new ApiError(422, 'Invalid', `${options}.meta.k8s.io "" is invalid: fieldValidation: ${message}`, { group: 'meta.k8s.io', kind: options, causes: [{ reason: 'FieldValueNotSupported', message, field: 'fieldValidation' }] });
}

/**
 * Decodes a written object as a real server decodes it into the typed struct: times and quantities as stored (or
 * refused), unknown fields dropped and either rejected (Strict), reported as warnings (Warn) or ignored. A body sent
 * whole (create, update) that cannot be decoded is a 400 `Kind in version "v" cannot be handled as a Kind: ...`; a
 * patched object a 422 quoting the object.
 */
function decodeFields(ctx: ApiServerContext, type: ResourceType, object: KubeObject, validation: FieldValidation, patched: boolean, warnings: string[]): void {
  const asSent = JSON.stringify(object);
  try {
    decodeObject(type, object);
    const unknown = [
      ...dropUnknownFields(type, object, ctx.newerFields, ctx.server.unknownFields).map((field) => `unknown field ${JSON.stringify(field)}`),
      ...duplicateFieldsOf(object).map((field) => `duplicate field ${JSON.stringify(field)}`),
    ];
    if (unknown.length === 0 || validation === 'Ignore') return;
    if (validation === 'Warn') {
      warnings.push(...unknown);
      return;
    }
    throw new DecodeError(`strict decoding error: ${unknown.join(', ')}`);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    throw patched ? invalidPatch(asSent, error.message) : cannotBeHandled(type, error.message);
  }
}

function serve(ctx: ApiServerContext, method: string, route: Route, query: URLSearchParams, body: unknown, contentType: string, dryRun: boolean): Result {
  const { store } = ctx;
  const { type, namespace, name, subresource } = route;
  if (subresource !== undefined && (subresource !== 'status' || !type.hasStatus)) {
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }
  const warnings: string[] = [];
  if (method === 'GET' && name === undefined) return { code: 200, body: list(store, type, namespace, query), warnings };
  if (method === 'GET' && name !== undefined) {
    const found = store.peek(type, namespace, name); // serialised as stored, never changed
    if (!found) throw notFound(type, name);
    return { code: 200, body: found, warnings };
  }
  if (method === 'POST' && name === undefined) {
    const validation = fieldValidationOf(query, method);
    if (typeof body === 'object' && body !== null) decodeFields(ctx, type, body as KubeObject, validation, false, warnings);
    return { code: 201, body: create(store, type, namespace, body, dryRun, ctx.server), warnings };
  }
  if (method === 'DELETE' && name === undefined && subresource === undefined) {
    // deletecollection: each selected object is deleted as by its own DELETE (finalizers, Orphan); the answer lists them.
    const selected = store.list(type, namespace).filter(selectorsOf(query));
    for (const object of selected) remove(store, type, object, query, body, dryRun);
    return { code: 200, body: { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: { resourceVersion: store.currentResourceVersion }, items: selected }, warnings };
  }
  if (name === undefined) throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  const existing = store.get(type, namespace, name);
  if (method === 'DELETE') {
    if (!existing) throw notFound(type, name);
    return { code: 200, body: remove(store, type, existing, query, body, dryRun), warnings };
  }
  if (method === 'PUT' || method === 'PATCH') {
    const validation = fieldValidationOf(query, method);
    if (!existing) throw notFound(type, name);
    const input = method === 'PUT' ? body : applyPatch(contentType, existing, body);
    if (typeof input !== 'object' || input === null) throw badRequest('the request body must be an object');
    decodeFields(ctx, type, input as KubeObject, validation, method === 'PATCH', warnings);
    return { code: 200, body: update(store, type, existing, input as KubeObject, subresource === 'status', dryRun, ctx.featureGates, ctx.server), warnings };
  }
  throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

function discoveryDocument(pathname: string, server: ServerVersion): unknown {
  const path = pathname.replace(/\/+$/, '');
  if (path === '/version') return server.versionInfo;
  const served = servedTypes(server);
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
  if (path === '/apis') {
    const groups = [...new Set(served.filter((t) => t.group !== '').map((t) => t.group))];
    return {
      kind: 'APIGroupList', apiVersion: 'v1',
      groups: groups.map((group) => {
        const versions = [...new Set(served.filter((t) => t.group === group).map((t) => t.version))].map((version) => ({ groupVersion: `${group}/${version}`, version }));
        return { name: group, versions, preferredVersion: versions[0] };
      }),
    };
  }
  const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!match) return undefined;
  const group = match[2] ?? '';
  const version = match[1] ?? match[3] ?? '';
  const types = served.filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`,
    resources: types.flatMap((t) => [
      { name: t.plural, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: t.verbs, ...(t.shortNames.length ? { shortNames: t.shortNames } : {}) },
      ...(t.hasStatus ? [{ name: `${t.plural}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] }] : []),
      ...(t.plural === 'serviceaccounts' && t.group === '' ? [tokenSubresource] : []),
    ]),
  };
}
