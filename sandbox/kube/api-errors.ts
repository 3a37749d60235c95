// v1 Status errors worded as the real API server words them (k8s.io/apimachinery/pkg/api/errors).
import type { ResourceType } from './store.ts';

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details: { name?: string; group?: string; kind?: string; causes?: StatusCause[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message,
      // An internal error the server did not classify carries no reason (a non-numeric resourceVersion's 500).
      ...(this.reason === '' ? {} : { reason: this.reason }),
      details: this.details, code: this.code,
    };
  }
}

/** `statefulsets.apps`, `persistentvolumeclaims` — how errors name a resource. */
export function qualifiedResource(t: ResourceType): string {
  return t.group === '' ? t.plural : `${t.plural}.${t.group}`;
}

export function notFound(t: ResourceType, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(t)} "${name}" not found`, { name, group: t.group, kind: t.plural });
}

export function alreadyExists(t: ResourceType, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(t)} "${name}" already exists`, { name, group: t.group, kind: t.plural });
}

export function beingDeleted(t: ResourceType, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `object is being deleted: ${qualifiedResource(t)} "${name}" already exists`, { name, group: t.group, kind: t.plural });
}

export function conflict(t: ResourceType, name: string, why: string): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(t)} "${name}": ${why}`, { name, group: t.group, kind: t.plural });
}

/** A DELETE precondition that does not hold: worded with the Kind (`StatefulSet.apps`), unlike other conflicts. */
export function preconditionFailed(t: ResourceType, name: string, field: 'UID' | 'ResourceVersion', expected: string, actual: string): ApiError {
  const kind = t.group === '' ? t.kind : `${t.kind}.${t.group}`;
  const why = field === 'UID' ? 'The object might have been deleted and then recreated' : 'The object might have been modified';
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${kind} "${name}": the ${field} in the precondition (${expected}) does not match the ${field} in record (${actual}). ${why}`, { name, group: t.group, kind: t.kind });
}

export const staleObject = 'the object has been modified; please apply your changes to the latest version and try again';

/** 422 Invalid: `Kind.group "name" is invalid: field: Reason: detail`. */
export function invalid(t: ResourceType, name: string, causes: StatusCause[]): ApiError {
  const kind = t.group === '' ? t.kind : `${t.kind}.${t.group}`;
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const message = causes.length === 1 ? `${kind} "${name}" is invalid: ${text}` : `${kind} "${name}" is invalid: [${text}]`;
  return new ApiError(422, 'Invalid', message, { name, group: t.group, kind: t.kind, causes });
}

export function forbidden(t: ResourceType, name: string, why: string): ApiError {
  return new ApiError(403, 'Forbidden', `${qualifiedResource(t)} "${name}" is forbidden: ${why}`, { name, group: t.group, kind: t.plural });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** A PATCH whose content type is not a patch type (plain `application/json` included). */
export function unsupportedMediaType(): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type');
}

/** A body sent whole (create, update) that does not decode into the kind's Go type. */
export function cannotBeHandled(t: ResourceType, why: string): ApiError {
  return badRequest(`${t.kind} in version ${JSON.stringify(t.version)} cannot be handled as a ${t.kind}: ${why}`);
}

/** A patched object that does not decode: 422 quoting the whole patched object, as the real server words it. */
export function invalidPatch(patchedJson: string, why: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(patchedJson)}: ${why}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] });
}
