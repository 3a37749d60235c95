// What the sandbox knows of each kind's fields, and the OpenAPI v3 documents it serves from that knowledge.
//
// The field knowledge comes from @kubernetes/client-node's generated models (each model's attributeTypeMap is generated
// from the upstream OpenAPI description), so the sandbox decodes objects like a real server decodes them into Go
// structs: fields no model declares are unknown, dropped on write, and reported as the `fieldValidation` directive asks.
//
// The documents are what kubectl reads before it writes: `/openapi/v3` (the index with hashed URLs) and one document
// per group/version whose PATCH operations carry `x-kubernetes-group-version-kind` and a `fieldValidation` query
// parameter. Seeing that parameter, kubectl leaves validation to the server (`?fieldValidation=Strict`) instead of
// downloading `/openapi/v2`. PATCH bodies list JSON and merge patches but not strategic merge patch, on purpose: the
// generated models carry no `x-kubernetes-patch-merge-key` extensions, and without them kubectl would compute list
// patches as whole-list replacements; not advertising it makes kubectl use its compiled-in patch metadata, which is the
// same metadata a real server publishes. Component schemas are named after client-node's models (`V1StatefulSetSpec`).
import { createHash } from 'node:crypto';
import * as clientNode from '@kubernetes/client-node';
import { apiVersionOf, resourceTypes, servedBy, type ResourceType } from './store.ts';
import type { ServerVersion } from './server-version.ts';

interface AttributeType {
  baseName: string;
  type: string;
  format: string;
}

interface ModelClass {
  getAttributeTypeMap(): AttributeType[];
}

type Shape =
  | { kind: 'scalar'; schema: OpenApiSchema }
  | { kind: 'free' }
  | { kind: 'array'; items: Shape }
  | { kind: 'map'; values: Shape }
  | { kind: 'model'; name: string };

export type OpenApiSchema = Record<string, unknown>;

const exported = clientNode as unknown as Record<string, unknown>;

function modelClass(name: string): ModelClass | undefined {
  const candidate = exported[name];
  if (typeof candidate !== 'function' || !('getAttributeTypeMap' in candidate)) return undefined;
  return candidate as unknown as ModelClass;
}

function shapeOf(type: string, format: string): Shape {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { kind: 'array', items: shapeOf(array[1] ?? 'any', '') };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { kind: 'map', values: shapeOf(map[1] ?? 'any', '') };
  switch (type) {
    case 'string': return { kind: 'scalar', schema: { type: 'string', ...(format ? { format } : {}) } };
    case 'Date': return { kind: 'scalar', schema: { type: 'string', format: 'date-time' } };
    case 'boolean': return { kind: 'scalar', schema: { type: 'boolean' } };
    case 'number': return { kind: 'scalar', schema: format.startsWith('int') ? { type: 'integer', format } : { type: 'number', format: format || 'double' } };
    case 'IntOrString': return { kind: 'scalar', schema: { 'x-kubernetes-int-or-string': true } };
    case 'any':
    case 'object': return { kind: 'free' };
    // A model the client does not know is treated as free-form: the sandbox never drops what it cannot describe.
    default: return modelClass(type) ? { kind: 'model', name: type } : { kind: 'free' };
  }
}

const fieldsCache = new Map<string, ReadonlyMap<string, Shape>>();

function fieldsOf(model: string): ReadonlyMap<string, Shape> {
  let fields = fieldsCache.get(model);
  if (!fields) {
    fields = new Map((modelClass(model)?.getAttributeTypeMap() ?? []).map((a) => [a.baseName, shapeOf(a.type, a.format)]));
    fieldsCache.set(model, fields);
  }
  return fields;
}

/** `v1` -> `V1`, as client-node's model names and the operation ids spell versions. */
function versionWord(type: ResourceType): string {
  return `${type.version.slice(0, 1).toUpperCase()}${type.version.slice(1)}`;
}

/** The client-node model of a served kind: `V1StatefulSet`, `CoreV1Event`, `EventsV1Event`. */
export function modelOf(type: ResourceType): string {
  if (type.kind === 'Event') return type.group === '' ? 'CoreV1Event' : 'EventsV1Event';
  return `${versionWord(type)}${type.kind}`;
}

/**
 * Fields the simulated server knows beyond client-node's models, by model (`{ V1PodSpec: ['futureField'] }`): a sandbox
 * that plays a cluster newer than the installed client keeps them (free-form) where it would drop unknown fields.
 */
export type NewerServerFields = Readonly<Record<string, readonly string[]>>;

/**
 * Removes the fields the kind does not declare, as decoding into the typed object does on a real server, and returns
 * their paths in the server's notation (`spec.template.spec.containers[0].imagee`).
 */
export function dropUnknownFields(type: ResourceType, object: Record<string, unknown>, newerFields: NewerServerFields = {}, olderServerFields: NewerServerFields = {}): string[] {
  const unknown: string[] = [];
  walk({ kind: 'model', name: modelOf(type) }, object, '', unknown, { newerFields, olderServerFields });
  return unknown;
}

/** Fields a server knows beyond the models (`newerFields`) and model fields an older server does not know. */
interface ServerFields { newerFields: NewerServerFields; olderServerFields: NewerServerFields }

function walk(shape: Shape, value: unknown, path: string, unknown: string[], known: ServerFields): void {
  if (value === null || typeof value !== 'object') return;
  if (shape.kind === 'array' && Array.isArray(value)) {
    value.forEach((item, index) => walk(shape.items, item, `${path}[${index}]`, unknown, known));
  } else if (shape.kind === 'map' && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) walk(shape.values, item, `${path}[${key}]`, unknown, known);
  } else if (shape.kind === 'model' && !Array.isArray(value)) {
    const fields = fieldsOf(shape.name);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const fieldPath = path === '' ? key : `${path}.${key}`;
      const field = known.olderServerFields[shape.name]?.includes(key) ? undefined : fields.get(key);
      if (field !== undefined) walk(field, record[key], fieldPath, unknown, known);
      else if (!known.newerFields[shape.name]?.includes(key)) {
        unknown.push(fieldPath);
        delete record[key];
      }
    }
  }
}

// ---- OpenAPI v3 documents ----

function schemaOf(shape: Shape): OpenApiSchema {
  switch (shape.kind) {
    case 'scalar': return shape.schema;
    case 'free': return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'array': return { type: 'array', items: schemaOf(shape.items) };
    case 'map': return { type: 'object', additionalProperties: schemaOf(shape.values) };
    case 'model': return { allOf: [{ $ref: `#/components/schemas/${shape.name}` }] };
  }
}

/** Adds `model` and every model it reaches to `schemas`, without the fields the server does not know. */
function addComponent(schemas: Record<string, OpenApiSchema>, model: string, unknownFields: NewerServerFields): void {
  if (schemas[model] !== undefined) return;
  const properties: Record<string, OpenApiSchema> = {};
  schemas[model] = { type: 'object', properties };
  for (const [name, shape] of fieldsOf(model)) {
    if (unknownFields[model]?.includes(name)) continue;
    properties[name] = schemaOf(shape);
    const inner = modelWithin(shape);
    if (inner !== undefined) addComponent(schemas, inner, unknownFields);
  }
}

/** The model a field holds, directly or as the items of its lists and maps. */
function modelWithin(shape: Shape): string | undefined {
  if (shape.kind === 'array') return modelWithin(shape.items);
  if (shape.kind === 'map') return modelWithin(shape.values);
  return shape.kind === 'model' ? shape.name : undefined;
}

const groupWords: Record<string, string> = { '': 'Core', apps: 'Apps', 'storage.k8s.io': 'Storage', 'events.k8s.io': 'Events', 'coordination.k8s.io': 'Coordination' };

function operationPrefix(type: ResourceType): string {
  const group = groupWords[type.group] ?? type.group.split('.')[0] ?? '';
  return `${group}${versionWord(type)}`;
}

const query = (name: string, schema: OpenApiSchema = { type: 'string' }): OpenApiSchema => ({ name, in: 'query', schema });
const writeParameters = [query('dryRun'), query('fieldManager'), query('fieldValidation'), query('pretty')];
const listParameters = ['labelSelector', 'fieldSelector', 'continue', 'resourceVersion', 'pretty'].map((n) => query(n)).concat(query('limit', { type: 'integer' }));
const json = (model: string): OpenApiSchema => ({ 'application/json': { schema: { $ref: `#/components/schemas/${model}` } } });
const ok = (model: string): OpenApiSchema => ({ 200: { description: 'OK', content: json(model) }, 401: { description: 'Unauthorized' } });

function operations(type: ResourceType): Record<string, OpenApiSchema> {
  const gvk = { group: type.group, version: type.version, kind: type.kind };
  const model = modelOf(type);
  const prefix = operationPrefix(type);
  const scope = type.namespaced ? 'Namespaced' : '';
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const collection = type.namespaced ? `${base}/namespaces/{namespace}/${type.plural}` : `${base}/${type.plural}`;
  const pathParameters = (withName: boolean): OpenApiSchema[] => [
    ...(withName ? [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }] : []),
    ...(type.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }] : []),
  ];
  const operation = (action: string, id: string, extra: OpenApiSchema): OpenApiSchema => ({
    operationId: id, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, ...extra,
  });
  const named = (verb: string, suffix = ''): string => `${verb}${prefix}${scope}${type.kind}${suffix}`;
  const item = (suffix: string): OpenApiSchema => ({
    parameters: pathParameters(true),
    get: operation('get', named('read', suffix), { responses: ok(model) }),
    put: operation('put', named('replace', suffix), { parameters: writeParameters, requestBody: { content: json(model), required: true }, responses: ok(model) }),
    patch: operation('patch', named('patch', suffix), {
      parameters: [...writeParameters, query('force', { type: 'boolean' })],
      requestBody: { content: { 'application/json-patch+json': { schema: { type: 'object' } }, 'application/merge-patch+json': { schema: { type: 'object' } } }, required: true },
      responses: ok(model),
    }),
  });
  const paths: Record<string, OpenApiSchema> = {
    [collection]: {
      parameters: pathParameters(false),
      get: operation('list', named('list'), { parameters: listParameters, responses: ok(`${model}List`) }),
      post: operation('post', named('create'), { parameters: writeParameters, requestBody: { content: json(model), required: true }, responses: { ...ok(model), 201: { description: 'Created', content: json(model) } } }),
    },
    [`${collection}/{name}`]: {
      ...item(''),
      delete: operation('delete', named('delete'), {
        parameters: [query('dryRun'), query('gracePeriodSeconds', { type: 'integer' }), query('propagationPolicy')],
        requestBody: { content: json('V1DeleteOptions') },
        responses: { ...ok('V1Status'), 202: { description: 'Accepted', content: json('V1Status') } },
      }),
    },
  };
  if (type.hasStatus) paths[`${collection}/{name}/status`] = item('Status');
  if (type.namespaced) {
    paths[`${base}/${type.plural}`] = { get: operation('list', `list${prefix}${type.kind}ForAllNamespaces`, { parameters: listParameters, responses: ok(`${model}List`) }) };
  }
  return paths;
}

/** `api/v1`, `apis/apps/v1`: the keys of the `/openapi/v3` index. */
function documentKey(type: ResourceType): string {
  return type.group === '' ? `api/${type.version}` : `apis/${apiVersionOf(type)}`;
}

interface OpenApiDocuments {
  index: { paths: Record<string, { serverRelativeURL: string }> };
  byKey: ReadonlyMap<string, { text: string; hash: string }>;
}

const documentsByVersion = new Map<string, OpenApiDocuments>();

/** Built once per version: the documents depend only on the served kinds and the installed client-node models. */
function openApiDocuments(server: ServerVersion): OpenApiDocuments {
  const built = documentsByVersion.get(server.gitVersion);
  if (built) return built;
  const byKey = new Map<string, { text: string; hash: string }>();
  const index: OpenApiDocuments['index'] = { paths: {} };
  const served = resourceTypes.filter((t) => servedBy(t, server.minor));
  for (const key of [...new Set(served.map(documentKey))]) {
    const types = served.filter((t) => documentKey(t) === key);
    const schemas: Record<string, OpenApiSchema> = {};
    for (const model of ['V1Status', 'V1DeleteOptions']) addComponent(schemas, model, server.unknownFields);
    for (const type of types) {
      addComponent(schemas, modelOf(type), server.unknownFields);
      addComponent(schemas, `${modelOf(type)}List`, server.unknownFields);
      (schemas[modelOf(type)] as OpenApiSchema)['x-kubernetes-group-version-kind'] = [{ group: type.group, version: type.version, kind: type.kind }];
    }
    const document = {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: server.gitVersion },
      paths: Object.assign({}, ...types.map(operations)) as Record<string, OpenApiSchema>,
      components: { schemas, securitySchemes: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } } },
      security: [{ BearerToken: [] }],
    };
    const text = JSON.stringify(document);
    const hash = createHash('sha512').update(text).digest('hex').toUpperCase();
    byKey.set(key, { text, hash });
    index.paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  const documents = { index, byKey };
  documentsByVersion.set(server.gitVersion, documents);
  return documents;
}

/** The body for `GET /openapi/v3[/<key>]`, or undefined when there is no such document. */
export function openApiResponse(pathname: string, server: ServerVersion): { text: string; etag?: string } | undefined {
  const path = pathname.replace(/\/+$/, '');
  if (path === '/openapi/v3') return { text: JSON.stringify(openApiDocuments(server).index) };
  if (!path.startsWith('/openapi/v3/')) return undefined;
  const document = openApiDocuments(server).byKey.get(path.slice('/openapi/v3/'.length));
  return document && { text: document.text, etag: `"${document.hash}"` };
}
