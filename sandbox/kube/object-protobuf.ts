// The objects kubectl's typed `create` commands send as protobuf (client-go's typed clients prefer it for built-in
// kinds): `kubectl create namespace`, `create serviceaccount` and `create configmap`, which README's and check's fixes
// print. A real server decodes them; the sandbox reads these kinds (k8s.io/api/core/v1/generated.proto, ObjectMeta from
// apimachinery's) into the JSON a JSON client would have sent, and still answers 415 for any other protobuf body.
import { bytesField, envelopedObject, protobufFields, stringFields, varintField } from './protobuf.ts';

type Json = Record<string, unknown>;

/** ObjectMeta: name = 1, generateName = 2, namespace = 3, labels = 11, annotations = 12, finalizers = 14. */
function objectMeta(message: Buffer | undefined): Json {
  if (!message) return {};
  const meta: Json = {};
  for (const [field, key] of [[1, 'name'], [2, 'generateName'], [3, 'namespace']] as const) {
    const value = stringFields(message, field)[0];
    if (value) meta[key] = value;
  }
  for (const [field, key] of [[11, 'labels'], [12, 'annotations']] as const) {
    const entries = stringMap(message, field);
    if (Object.keys(entries).length > 0) meta[key] = entries;
  }
  const finalizers = stringFields(message, 14);
  if (finalizers.length > 0) meta.finalizers = finalizers;
  return meta;
}

/** A `map<string, string>` field: repeated entries of key = 1, value = 2. */
function stringMap(message: Buffer, wanted: number): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [field, entry] of protobufFields(message)) {
    if (field !== wanted || !Buffer.isBuffer(entry)) continue;
    map[stringFields(entry, 1)[0] ?? ''] = stringFields(entry, 2)[0] ?? '';
  }
  return map;
}

/** A `map<string, bytes>` field, its values base64 as in JSON. */
function bytesMap(message: Buffer, wanted: number): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [field, entry] of protobufFields(message)) {
    if (field !== wanted || !Buffer.isBuffer(entry)) continue;
    map[stringFields(entry, 1)[0] ?? ''] = (bytesField(entry, 2) ?? Buffer.alloc(0)).toString('base64');
  }
  return map;
}

/** `name` of each LocalObjectReference / ObjectReference in a repeated field (name = 1 in the first, 3 in the second). */
function references(message: Buffer, wanted: number, nameField: number): Json[] {
  return [...protobufFields(message)].filter(([field, value]) => field === wanted && Buffer.isBuffer(value))
    .map(([, value]) => ({ name: stringFields(value as Buffer, nameField)[0] ?? '' }));
}

const decoders: Readonly<Record<string, (object: Buffer) => Json>> = {
  // Namespace: metadata = 1, spec = 2 (finalizers = 1).
  Namespace: (object) => {
    const spec = bytesField(object, 2);
    const finalizers = spec ? stringFields(spec, 1) : [];
    return { metadata: objectMeta(bytesField(object, 1)), ...(finalizers.length > 0 ? { spec: { finalizers } } : {}) };
  },
  // ServiceAccount: metadata = 1, secrets = 2 (ObjectReference), imagePullSecrets = 3, automountServiceAccountToken = 4.
  ServiceAccount: (object) => {
    const automount = varintField(object, 4);
    const secrets = references(object, 2, 3);
    const pullSecrets = references(object, 3, 1);
    return {
      metadata: objectMeta(bytesField(object, 1)),
      ...(secrets.length > 0 ? { secrets } : {}), ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
      ...(automount === undefined ? {} : { automountServiceAccountToken: automount !== 0 }),
    };
  },
  // ConfigMap: metadata = 1, data = 2, binaryData = 3, immutable = 4.
  ConfigMap: (object) => {
    const data = stringMap(object, 2);
    const binaryData = bytesMap(object, 3);
    const immutable = varintField(object, 4);
    return {
      metadata: objectMeta(bytesField(object, 1)),
      ...(Object.keys(data).length > 0 ? { data } : {}), ...(Object.keys(binaryData).length > 0 ? { binaryData } : {}),
      ...(immutable === undefined ? {} : { immutable: immutable !== 0 }),
    };
  },
};

/** The kinds whose protobuf bodies the sandbox reads. */
export function decodesProtobuf(kind: string): boolean {
  return Object.hasOwn(decoders, kind);
}

/**
 * The object in a protobuf body, as JSON with the apiVersion and kind its envelope names; an error when the envelope
 * is not Kubernetes protobuf or names another kind than `expectedKind`.
 */
export function decodeProtobufObject(body: Buffer, expectedKind: string): Json {
  const object = envelopedObject(body);
  const typeMeta = bytesField(body.subarray(4), 1);
  const apiVersion = typeMeta ? stringFields(typeMeta, 1)[0] ?? '' : '';
  const kind = typeMeta ? stringFields(typeMeta, 2)[0] ?? '' : '';
  const decode = decoders[kind];
  if (kind !== expectedKind || decode === undefined) throw new Error(`the body is a ${kind || 'protobuf object of no kind'}, not a ${expectedKind}`);
  return { apiVersion, kind, ...decode(object) };
}
