// Reading the little of Kubernetes' protobuf encoding that kubectl's typed requests need (client-go's typed clients
// send built-in kinds as protobuf): the `k8s\0` envelope (runtime.Unknown: typeMeta = 1, raw = 2) and the fields of a
// message. Length-delimited values come back as Buffers, varints as numbers; other wire types are not used here.

const envelopeMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The media type of Kubernetes protobuf bodies. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/** The encoded object inside a Kubernetes protobuf body (its `raw`), or an error naming what is wrong. */
export function envelopedObject(body: Buffer): Buffer {
  if (!body.subarray(0, 4).equals(envelopeMagic)) throw new Error('not a Kubernetes protobuf envelope');
  return bytesField(body.subarray(4), 2) ?? Buffer.alloc(0);
}

/** The first length-delimited value of field `wanted`. */
export function bytesField(message: Buffer, wanted: number): Buffer | undefined {
  for (const [field, value] of protobufFields(message)) if (field === wanted && Buffer.isBuffer(value)) return value;
  return undefined;
}

/** Every string of a repeated (or single) string field. */
export function stringFields(message: Buffer, wanted: number): string[] {
  return [...protobufFields(message)].filter(([field, value]) => field === wanted && Buffer.isBuffer(value)).map(([, value]) => (value as Buffer).toString('utf8'));
}

/** The first varint of field `wanted` (int64 values up to 2^53 are exact). */
export function varintField(message: Buffer, wanted: number): number | undefined {
  for (const [field, value] of protobufFields(message)) if (field === wanted && typeof value === 'number') return value;
  return undefined;
}

/** The fields of one message, in order. */
export function* protobufFields(message: Buffer): Generator<[number, Buffer | number]> {
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

/** A request body as JSON: parsed as JSON, or decoded by `fromProtobuf` when sent as Kubernetes protobuf. */
export async function readJsonOrProtobuf(request: AsyncIterable<unknown> & { headers: { 'content-type'?: string | undefined } }, fromProtobuf: (body: Buffer) => unknown): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType === protobufMediaType) return fromProtobuf(body);
  return JSON.parse(body.toString('utf8')) as unknown;
}
