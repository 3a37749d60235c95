// Validates sandbox responses against GitHub's official OpenAPI description (api.github.com, from @octokit/openapi).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

const require = createRequire(import.meta.url);
const specPath = require.resolve('@octokit/openapi/generated/api.github.com.json');
let spec: { paths: Record<string, Record<string, Json>>; components: Json } | undefined;
let ajv: Ajv | undefined;
const cache = new Map<string, ValidateFunction>();

function load(): { spec: NonNullable<typeof spec>; ajv: Ajv } {
  if (!spec || !ajv) {
    spec = JSON.parse(readFileSync(specPath, 'utf8')) as NonNullable<typeof spec>;
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    ajv.addSchema({ $id: 'github', components: rewriteRefs(spec.components) });
  }
  return { spec, ajv };
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  const result: Json = {};
  for (const [key, child] of Object.entries(value as Json)) {
    result[key] = key === '$ref' && typeof child === 'string' && child.startsWith('#/') ? `github${child}` : rewriteRefs(child);
  }
  // OpenAPI 3.0 `nullable` next to a $ref or composition (no `type`): JSON Schema needs it spelled as anyOf null.
  if (result.nullable === true && result.type === undefined) {
    delete result.nullable;
    return { anyOf: [result, { type: 'null' }] };
  }
  return result;
}

/** Asserts that `body` is what GitHub documents for operation `operationId` (e.g. `repos/get`) and `status`. */
export function assertMatchesOpenApi(operationId: string, status: number, body: unknown): void {
  const { spec: openapi, ajv: validator } = load();
  const key = `${operationId} ${status}`;
  let validate = cache.get(key);
  if (!validate) {
    let schema: unknown;
    for (const methods of Object.values(openapi.paths)) {
      for (const operation of Object.values(methods)) {
        if ((operation as { operationId?: string }).operationId !== operationId) continue;
        let response = ((operation as { responses?: Record<string, Json> }).responses ?? {})[String(status)];
        if (response && typeof response.$ref === 'string') {
          const name = response.$ref.split('/').pop() ?? '';
          response = ((openapi.components.responses ?? {}) as Record<string, Json>)[name];
        }
        schema = ((response?.content as Record<string, { schema?: unknown }> | undefined)?.['application/json'])?.schema;
      }
    }
    if (schema === undefined) throw new Error(`no ${status} response schema for ${operationId} in the OpenAPI description`);
    validate = validator.compile(rewriteRefs(schema) as object);
    cache.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${operationId} ${status} does not match GitHub's OpenAPI description: ${validator.errorsText(validate.errors, { separator: '\n  ' })}`);
  }
}

/** Asserts that `body` is GitHub's component schema `name` (e.g. `basic-error`, the body of a 403 or 404). */
export function assertMatchesComponent(name: string, body: unknown): void {
  const { spec: openapi, ajv: validator } = load();
  const key = `#component ${name}`;
  let validate = cache.get(key);
  if (!validate) {
    const schema = ((openapi.components.schemas ?? {}) as Record<string, unknown>)[name];
    if (schema === undefined) throw new Error(`no component schema ${name} in the OpenAPI description`);
    validate = validator.compile(rewriteRefs(schema) as object);
    cache.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${name} does not match GitHub's OpenAPI description: ${validator.errorsText(validate.errors, { separator: '\n  ' })}`);
  }
}
