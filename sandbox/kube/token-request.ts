// The TokenRequest subresource (`POST .../serviceaccounts/NAME/token`, `kubectl create token NAME`): a token for a
// ServiceAccount, answered as kube-apiserver answers (pkg/registry/core/serviceaccount/storage/token.go) and then
// accepted as a bearer token of that ServiceAccount (user `system:serviceaccount:NS:NAME`, its two groups), which
// RBAC restricts, until it expires or the ServiceAccount (or the Pod it is bound to) is gone. kubectl sends the
// request as protobuf (authentication/v1 generated.proto: metadata = 1 {name = 1, namespace = 3}, spec = 2
// {audiences = 1, boundObjectRef = 3 {kind = 1, apiVersion = 2, name = 3, uid = 4}, expirationSeconds = 4}).
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest, notFound } from './api-errors.ts';
import type { AccessControl } from './authorization.ts';
import { bytesField, envelopedObject, readJsonOrProtobuf, stringFields, varintField } from './protobuf.ts';
import { mustResourceType, type KubeObject, type ObjectStore } from './store.ts';

const serviceAccountType = mustResourceType('v1', 'ServiceAccount');
const podType = mustResourceType('v1', 'Pod');
const group = 'authentication.k8s.io';
/** kube-apiserver's --api-audiences default: its --service-account-issuer, as kubeadm and kind set it. */
const issuer = 'https://kubernetes.default.svc.cluster.local';
const defaultExpirationSeconds = 3600;
/** Signs the sandbox's tokens so they are well-formed JWTs; they are checked by lookup, as issued. */
const signingKey = randomBytes(32);

interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

interface TokenRequestBody {
  metadata?: { name?: string; namespace?: string };
  spec?: { audiences?: string[] | null; expirationSeconds?: number | null; boundObjectRef?: BoundObjectReference | null };
}

/** The descriptor discovery lists under `/api/v1` for the subresource. */
export const tokenSubresource = { name: 'serviceaccounts/token', singularName: '', namespaced: true, group, version: 'v1', kind: 'TokenRequest', verbs: ['create'] };

/** A request to the subresource: a POST, its body JSON or protobuf, answered with the TokenRequest (201). */
export async function serveTokenRequest(
  context: { store: ObjectStore; access: AccessControl }, method: string, route: { namespace?: string | undefined; name?: string | undefined },
  request: IncomingMessage,
): Promise<Record<string, unknown>> {
  if (method !== 'POST' || route.namespace === undefined || route.name === undefined) {
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }
  let body: unknown;
  try {
    body = await readJsonOrProtobuf(request, decodeTokenRequest);
  } catch (error) {
    throw badRequest(`the server could not read the request body: ${error instanceof Error ? error.message : String(error)}`);
  }
  return createToken(context, route.namespace, route.name, typeof body === 'object' && body !== null ? body : {});
}

function decodeTokenRequest(body: Buffer): TokenRequestBody {
  const object = envelopedObject(body);
  const metadata = bytesField(object, 1);
  const spec = bytesField(object, 2);
  const ref = spec && bytesField(spec, 3);
  const text = (message: Buffer | undefined, field: number): string | undefined => (message ? stringFields(message, field)[0] : undefined);
  return {
    metadata: { ...optional('name', text(metadata, 1)), ...optional('namespace', text(metadata, 3)) },
    spec: {
      audiences: spec ? stringFields(spec, 1) : [],
      expirationSeconds: spec ? varintField(spec, 4) ?? null : null,
      boundObjectRef: ref ? { ...optional('kind', text(ref, 1)), ...optional('apiVersion', text(ref, 2)), ...optional('name', text(ref, 3)), ...optional('uid', text(ref, 4)) } : null,
    },
  };
}

/** The answered TokenRequest (201), its token now accepted by `access`. */
function createToken(
  context: { store: ObjectStore; access: AccessControl }, namespace: string, name: string, request: TokenRequestBody,
): Record<string, unknown> {
  const { store } = context;
  if (request.metadata?.name && request.metadata.name !== name) throw invalid(name, 'metadata.name', request.metadata.name, 'must match the service account name if specified');
  if (request.metadata?.namespace && request.metadata.namespace !== namespace) throw invalid(name, 'metadata.namespace', request.metadata.namespace, 'must match the service account namespace if specified');
  const account = store.get(serviceAccountType, namespace, name);
  if (!account) throw notFound(serviceAccountType, name);
  const expirationSeconds = request.spec?.expirationSeconds ?? defaultExpirationSeconds;
  if (expirationSeconds < 600) throw invalid('', 'spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes');
  if (expirationSeconds > 2 ** 32) throw invalid('', 'spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds');
  const audiences = request.spec?.audiences && request.spec.audiences.length > 0 ? request.spec.audiences : [issuer];
  const boundRef = request.spec?.boundObjectRef ?? null;
  const pod = boundRef ? boundPod(store, namespace, name, boundRef) : undefined;

  const issuedAt = new Date(store.timestamp());
  const expiresAt = new Date(issuedAt.getTime() + expirationSeconds * 1000);
  const user = `system:serviceaccount:${namespace}:${name}`;
  const token = jwt({
    aud: audiences, exp: seconds(expiresAt), iat: seconds(issuedAt), iss: issuer, jti: randomUUID(), nbf: seconds(issuedAt), sub: user,
    'kubernetes.io': {
      namespace, serviceaccount: { name, uid: account.metadata.uid },
      ...(pod ? { pod: { name: pod.metadata.name, uid: pod.metadata.uid } } : {}),
    },
  });
  // Valid while unexpired, and while the ServiceAccount (and the bound Pod) it was issued for still exist.
  const stillValid = (): boolean => new Date(store.timestamp()) < expiresAt
    && store.get(serviceAccountType, namespace, name)?.metadata.uid === account.metadata.uid
    && (!pod || store.get(podType, namespace, pod.metadata.name)?.metadata.uid === pod.metadata.uid);
  context.access.addToken(token, { name: user, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] }, stillValid);
  return {
    kind: 'TokenRequest', apiVersion: `${group}/v1`,
    metadata: { name, namespace, creationTimestamp: store.timestamp() },
    spec: { audiences, expirationSeconds, boundObjectRef: boundRef },
    status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
}

/** The Pod a token is bound to, as the registry checks it; the sandbox serves no Secrets or Nodes to bind to. */
function boundPod(store: ObjectStore, namespace: string, name: string, ref: BoundObjectReference): KubeObject {
  const [refGroup, refVersion] = (ref.apiVersion ?? '').includes('/') ? (ref.apiVersion ?? '').split('/') : ['', ref.apiVersion ?? ''];
  if (refGroup !== '' || (ref.kind !== 'Pod' && ref.kind !== 'Secret' && ref.kind !== 'Node')) {
    throw badRequest(`cannot bind token to object of type ${refGroup ?? ''}/${refVersion ?? ''}, Kind=${ref.kind ?? ''}`);
  }
  if (ref.kind !== 'Pod') throw new ApiError(404, 'NotFound', `${ref.kind === 'Secret' ? 'secrets' : 'nodes'} "${ref.name ?? ''}" not found`, { name: ref.name ?? '', kind: ref.kind === 'Secret' ? 'secrets' : 'nodes' });
  const pod = store.get(podType, namespace, ref.name ?? '');
  if (!pod) throw notFound(podType, ref.name ?? '');
  const podAccount = (pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? 'default';
  if (podAccount !== name) throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
  if (ref.uid && ref.uid !== pod.metadata.uid) {
    throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on Pod "${ref.name ?? ''}": the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`, { name: ref.name ?? '', kind: 'Pod' });
  }
  return pod;
}

/** 422 `TokenRequest.authentication.k8s.io "NAME" is invalid: FIELD: Invalid value: VALUE: DETAIL`. */
function invalid(name: string, field: string, value: string | number, detail: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return new ApiError(422, 'Invalid', `TokenRequest.${group} "${name}" is invalid: ${field}: ${message}`, {
    name, group, kind: 'TokenRequest', causes: [{ reason: 'FieldValueInvalid', message, field }],
  });
}

function jwt(claims: Record<string, unknown>): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createHmac('sha256', signingKey).update(unsigned).digest('base64url')}`;
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined || value === '' ? {} : { [key]: value }) as { [P in K]?: string };
}

