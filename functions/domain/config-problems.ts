// A configuration problem said as a sentence a person can act on: ajv's schema errors located as
// `targets[0].source.github.branch`, and values quoted only when they cannot be a secret pasted in the wrong place.
import type { ErrorObject } from 'ajv';
import { knownFields } from './schema-fields.ts';
import { closestName } from './similar-names.ts';
import { count } from './spelling.ts';

/** `targets[0].source.github.branch is required`, `targets[1].cluster has an unknown field "kind"`, ... */
export function describe(error: ErrorObject, root: unknown): string {
  const where = pointerToDotted(error.instancePath) || '(top level)';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      if (/\.growth$/.test(where) && params.missingProperty === 'max') return `${where}.max is required: the largest size growth may propose (a quantity such as 500Gi)`;
      return `${join(where, String(params.missingProperty))} is required`;
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      // A misspelling of a field is an edit or so away; a field that merely looks alike (`size`, `file`) is not one.
      const closest = closestName(field, knownFields(error.instancePath), Math.max(1, Math.floor(field.length / 4)));
      const suggestion = closest === undefined ? hint(where) : `; did you mean ${JSON.stringify(closest)}?`;
      return `${where} has an unknown field ${shown(field)}${suggestion}`;
    }
    case 'minProperties':
    case 'maxProperties':
      return `${where} must have exactly one of ${oneOfFor(where)}`;
    case 'type':
      return `${where} must be ${String(params.type)}, not ${typeName(valueAt(root, error.instancePath))}`;
    case 'pattern':
      if (/\.sizeSources\[\d+\]\.path$/.test(where)) return `${where} ${shown(valueAt(root, error.instancePath))} is not a YAML path like server.persistentVolume.size or a.b[0].c (quote keys that contain dots: a."b.c")`;
      if (/\.sizeSources\[\d+\]\.statefulSet$/.test(where)) return `${where} ${shown(valueAt(root, error.instancePath))} must be namespace/name`;
      if (/\.(growth\.fullWithin|modificationCooldown|modificationLimit\.per)$/.test(where)) return `${where} ${shown(valueAt(root, error.instancePath))} is not a duration such as 30m, 6h or 7d`;
      if (/\.usage\.prometheus\.url$/.test(where)) return `${where} ${shown(valueAt(root, error.instancePath))} is not an http(s) URL without query or fragment, such as http://prometheus.monitoring:9090`;
      if (/^targets\[\d+\]\.stalledAfter$/.test(where)) return `${where} ${shown(valueAt(root, error.instancePath))} is not a duration such as 30m, 1h, 1h30m or 2d`;
      if (/\.sizeSources\[\d+\]\.file$/.test(where)) return `${where} ${shown(valueAt(root, error.instancePath))} must be a path inside the repository (relative, no "..")`;
      return `${where} ${shown(valueAt(root, error.instancePath))} does not have the expected form (${String(params.pattern)})`;
    case 'enum':
      return `${where} ${shown(valueAt(root, error.instancePath))} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'propertyNames':
      return `${where} has the key ${shown(params.propertyName)}, which is not a ${where.endsWith('.drivers') ? 'CSI driver' : 'StorageClass'} name (lowercase letters, digits, "-" and ".")`;
    case 'minItems':
      return `${where} must list at least ${count(Number(params.limit), 'item')}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * A problem said of the target by its name (`target "prod": source.github.branch is required`) rather than by its
 * place in the list (`targets[0].source...`), when the target has a valid name no other target has.
 */
export function nameTargets(problem: string, config: unknown): string {
  const names = uniqueTargetNames(config);
  let lead: string | undefined;
  return problem.replace(/targets\[(\d+)\](\.?)/g, (match: string, index: string, dot: string, offset: number) => {
    const name = names[Number(index)];
    if (name === undefined) return match;
    if (offset === 0) {
      lead = index;
      return `target ${JSON.stringify(name)}${dot ? ': ' : ''}`;
    }
    // The same target again further on is said from where the problem already is: `needs prices`.
    return index === lead && dot ? '' : `target ${JSON.stringify(name)}${dot ? ' ' : ''}`;
  });
}

function uniqueTargetNames(config: unknown): Array<string | undefined> {
  const targets = typeof config === 'object' && config !== null ? (config as { targets?: unknown }).targets : undefined;
  if (!Array.isArray(targets)) return [];
  // Only a name the schema accepts (a wrong one may be anything, a pasted secret included).
  const names = targets.map((t: unknown) => {
    const name = typeof t === 'object' && t !== null ? (t as { name?: unknown }).name : undefined;
    return typeof name === 'string' && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) && name.length <= 40 ? name : undefined;
  });
  return names.map((name) => (name !== undefined && names.filter((n) => n === name).length === 1 ? name : undefined));
}

function oneOfFor(where: string): string {
  if (where.endsWith('.source')) return 'github or local';
  if (where.endsWith('.cluster')) return 'kubeconfig or eks';
  if (where.endsWith('.privateKey') || where.endsWith('.recordKey') || where.endsWith('.bearer')) return 'file, env or secret';
  if (where.endsWith('.auth')) return 'sigv4 or bearer';
  return 'the allowed fields';
}

function hint(where: string): string {
  return where.endsWith('.source') || where.endsWith('.cluster') || where.endsWith('.auth') ? ` (expected ${oneOfFor(where)})` : '';
}

function join(where: string, field: string): string {
  return where === '(top level)' ? field : `${where}.${field}`;
}

function pointerToDotted(pointer: string): string {
  return pointer.split('/').slice(1).reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function valueAt(root: unknown, pointer: string): unknown {
  return pointer.split('/').slice(1).reduce<unknown>((node, part) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined), root);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string ${shown(value)}`;
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a map' : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * A value quoted in an error, unless it may be a secret: a whole file passed by mistake (a string where the
 * configuration should be) or a token pasted where a variable name belongs never reaches stderr or the logs.
 */
export function shown(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  if (value.length > 64 || value.includes('\n')) return `(${value.length} characters, not shown)`;
  if (looksLikeCredential(value)) return '(a value that looks like a credential, not shown)';
  return JSON.stringify(value);
}

export function looksLikeCredential(value: string): boolean {
  if (/^(gh[pousr]_|github_pat_|AKIA|ASIA|k8s-aws-v1\.|eyJ|xox[abp]-|-----BEGIN)/.test(value)) return true;
  // Long runs of mixed letters and digits with no separators read as keys, not names.
  return value.length >= 20 && /^[A-Za-z0-9+/=_-]+$/.test(value) && /[0-9]/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value);
}
