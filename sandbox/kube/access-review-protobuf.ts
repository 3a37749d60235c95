// `kubectl auth can-i` sends its SelfSubjectAccessReview as protobuf (client-go's typed clients prefer it), which the
// sandbox otherwise does not decode. This reads just that message: the `k8s\0` envelope (runtime.Unknown: typeMeta = 1,
// raw = 2) around a SelfSubjectAccessReview (spec = 2) whose spec.resourceAttributes (= 1) holds namespace = 1,
// verb = 2, group = 3, version = 4, resource = 5, subresource = 6, name = 7 (k8s.io/api/authorization/v1/generated.proto).

import type { IncomingMessage } from 'node:http';
import { badRequest } from './api-errors.ts';

const envelopeMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The body of a SelfSubjectAccessReview POST, JSON or protobuf, as JSON. */
export async function readAccessReview(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  try {
    return mediaType === 'application/vnd.kubernetes.protobuf' ? decodeAccessReview(body) : JSON.parse(body.toString('utf8')) as unknown;
  } catch (error) {
    throw badRequest(`the server could not read the request body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The review as the JSON body a JSON client would have sent. */
export function decodeAccessReview(body: Buffer): Record<string, unknown> {
  if (!body.subarray(0, 4).equals(envelopeMagic)) throw new Error('not a Kubernetes protobuf envelope');
  const raw = bytesField(body.subarray(4), 2);
  const spec = raw && bytesField(raw, 2);
  const attributes = spec && bytesField(spec, 1);
  if (!attributes) return { spec: {} };
  const names = ['', 'namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
  const resourceAttributes: Record<string, string> = {};
  for (const [field, value] of fields(attributes)) {
    const name = names[field];
    if (name && Buffer.isBuffer(value)) resourceAttributes[name] = value.toString('utf8');
  }
  return { spec: { resourceAttributes } };
}

function bytesField(message: Buffer, wanted: number): Buffer | undefined {
  for (const [field, value] of fields(message)) if (field === wanted && Buffer.isBuffer(value)) return value;
  return undefined;
}

/** The fields of one message: length-delimited values as Buffers, varints as numbers (other wire types are not used here). */
function* fields(message: Buffer): Generator<[number, Buffer | number]> {
  let offset = 0;
  while (offset < message.length) {
    const [key, afterKey] = varint(message, offset);
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (wireType === 0) {
      const [value, next] = varint(message, afterKey);
      offset = next;
      yield [field, value];
    } else if (wireType === 2) {
      const [length, start] = varint(message, afterKey);
      offset = start + length;
      if (offset > message.length) throw new Error('truncated protobuf message');
      yield [field, message.subarray(start, offset)];
    } else {
      throw new Error(`unexpected protobuf wire type ${wireType}`);
    }
  }
}

function varint(buffer: Buffer, start: number): [number, number] {
  let value = 0;
  let multiplier = 1;
  for (let offset = start; offset < buffer.length; offset++) {
    const byte = buffer[offset] ?? 0;
    value += (byte & 0x7f) * multiplier;
    if ((byte & 0x80) === 0) return [value, offset + 1];
    multiplier *= 128;
  }
  throw new Error('truncated protobuf varint');
}
