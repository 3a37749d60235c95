// `kubectl auth can-i` sends its SelfSubjectAccessReview as protobuf (client-go's typed clients prefer it), which the
// sandbox otherwise does not decode. This reads just that message (protobuf.ts reads the envelope): a
// SelfSubjectAccessReview (spec = 2) whose spec.resourceAttributes (= 1) holds namespace = 1, verb = 2, group = 3,
// version = 4, resource = 5, subresource = 6, name = 7 (k8s.io/api/authorization/v1/generated.proto).

import type { IncomingMessage } from 'node:http';
import { badRequest } from './api-errors.ts';
import { bytesField, envelopedObject, protobufFields, readJsonOrProtobuf } from './protobuf.ts';

/** The body of a SelfSubjectAccessReview POST, JSON or protobuf, as JSON. */
export async function readAccessReview(request: IncomingMessage): Promise<unknown> {
  try {
    return await readJsonOrProtobuf(request, decodeAccessReview);
  } catch (error) {
    throw badRequest(`the server could not read the request body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The review as the JSON body a JSON client would have sent. */
export function decodeAccessReview(body: Buffer): Record<string, unknown> {
  const spec = bytesField(envelopedObject(body), 2);
  const attributes = spec && bytesField(spec, 1);
  if (!attributes) return { spec: {} };
  const names = ['', 'namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
  const resourceAttributes: Record<string, string> = {};
  for (const [field, value] of protobufFields(attributes)) {
    const name = names[field];
    if (name && Buffer.isBuffer(value)) resourceAttributes[name] = value.toString('utf8');
  }
  return { spec: { resourceAttributes } };
}
