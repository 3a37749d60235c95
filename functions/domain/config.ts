// The tool's configuration: a list of targets (a Git source + a cluster + a namespace allowlist). Validated against
// schemas/config.schema.json by ajv's code generated ahead of time (config-validator.js, see schema-validators-source.ts: no schema compile at start);
// every problem is turned into a sentence a person can act on (config-problems.ts).
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as jsYaml from 'js-yaml';
import { validate } from './config-validator.js';
import type { ClusterConfig, ClusterFacts } from './cluster-key.ts';
import { crossTargetProblems, stateNamespaceWhy } from './cross-target-rules.ts';
import { describe, looksLikeCredential, nameTargets, shown } from './config-problems.ts';
import { parseDuration } from './duration.ts';
import { implausibleSize, parseQuantity, QuantityError } from './quantity.ts';
import type { ModificationLimit } from './modification-limit.ts';
import {
  readGrowthPolicy, readModificationLimits, usageProblems, usageWithPaths, type DriversConfigText, type GrowthConfigText, type GrowthPolicy, type UsageConfig,
} from './usage-config.ts';

export { shown } from './config-problems.ts';

export interface GitHubSource {
  owner: string;
  repo: string;
  branch: string;
  paths: string[];
  apiUrl?: string;
  token?: { env: string };
  app?: { appId: number; installationId: number; privateKey: { file?: string; env?: string; secret?: string } };
}

export interface LocalSource {
  directory: string;
  paths: string[];
}

/** A size that lives outside a StatefulSet manifest (a chart's values, a Kustomize patch); see domain/size-sources.ts. */
export interface SizeSourceConfig {
  /** Repository path of the file, e.g. `apps/victoria/values-prod.yaml`. */
  file: string;
  /** YAML path inside it (domain/yaml-path.ts), e.g. `server.persistentVolume.size`. */
  path: string;
  /** `namespace/name` of the StatefulSet the chart renders. */
  statefulSet: string;
  /** The volumeClaimTemplate's name in that StatefulSet. */
  template: string;
  /** What the value is: the template's size (`storage`, the default) or its `volumeAttributesClassName`. */
  value?: 'storage' | 'volumeAttributesClassName';
  /** Limits for this template, field by field over the target's (engine/plan/guardrails.ts). */
  guardrails?: GuardrailsConfig;
  /** An operator writes the StatefulSet from a resource of this kind: only its PVCs are grown (engine/plan/controller-owner.ts). */
  ownedBy?: { kind: string; group?: string };
}

/** Limits on one template's size change; a change beyond any of them is blocked (engine/plan/guardrails.ts). */
export interface GuardrailsConfig {
  /** The largest size a template may ask for, a quantity (`2Ti`). */
  maxSize?: string | number;
  /** The largest new size as a multiple of the current size (live template or PVCs, the largest; default 10). */
  maxGrowthFactor?: number;
  /** The largest monthly cost increase of one template's change, in the target's price currency. */
  maxMonthlyIncrease?: number;
}

/** What a GiB-month of each StorageClass costs: the user's own figures, there is no built-in price list. */
export interface PriceConfig {
  /** ISO 4217 code, `USD` unless set. */
  currency: string;
  perGiBMonth: Record<string, number>;
}

/** Where the key that signs recreation records is kept (engine/records/authenticity.ts); exactly one field. */
export interface RecordKeySource {
  secret?: string;
  env?: string;
  file?: string;
}

/** How long a volume may wait for its node to finish an expansion before it is said to be stalled, unless `stalledAfter` says. */
export const defaultStalledAfter = '1h';

/** The namespace of their own that holds each target's Lease and recreation records unless `namespaces.state` says otherwise. */
export const defaultStateNamespace = 'sts-volume-gitops';

export interface TargetConfig {
  name: string;
  source: { github: GitHubSource } | { local: LocalSource };
  cluster: ClusterConfig;
  /** What run time learnt of the cluster (its account, its server's URL: app/resolve-clusters.ts); absent in the file's reading. */
  clusterFacts?: ClusterFacts;
  sizeSources: SizeSourceConfig[];
  /** Limits on every template's change (a size source may override them); absent: only the default growth factor. */
  guardrails?: GuardrailsConfig;
  prices?: PriceConfig;
  /** `state`: where the Lease and the recreation records live. */
  namespaces: { default: string; state: string; allow: string[] };
  recordKey?: RecordKeySource;
  /**
   * `forks`: whether pull requests from forks are checked, from Git alone (feedback/fork-verdict.ts), or only marked not
   * validated. `writeBack`: write-back pull requests (usage/write-back.ts), and a live template grown outside Git held
   * for them; recovery's value when not set (both need the same Contents write).
   */
  pullRequests: { validate: boolean; recovery: boolean; writeBack: boolean; forks: 'neutral' | 'validate' };
  /** `stalledAfter` (default 1h) in seconds: how long a volume may wait for its node (engine/volumes/node-expansion.ts). */
  stalledAfterSeconds?: number;
  /** Where volume usage is read (domain/usage-config.ts); absent: none is read. */
  usage?: UsageConfig;
  /** When growth is proposed, defaults filled in; absent: growth is off. */
  growth?: GrowthPolicy;
  /**
   * Each CSI driver's modification limit (`drivers.<name>.modificationLimit` or `.modificationCooldown`, over the
   * defaults); absent when the file sets none: the defaults (domain/modification-limit.ts) apply.
   */
  modificationLimits?: Record<string, ModificationLimit>;
}

export interface Config {
  targets: TargetConfig[];
}

export const configEnvironmentVariable = 'STS_VOLUME_GITOPS_CONFIG';

export class ConfigError extends Error {
  constructor(readonly source: string, readonly problems: string[]) {
    super(`invalid configuration ${source}: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}


/** A path from the file: `~` and `~/...` in the home directory (as a shell reads them), others against `baseDir`. */
function resolvePath(baseDir: string, path: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return resolve(baseDir, path);
}

/** Parses and validates a YAML or JSON configuration; relative paths resolve against `baseDir`, `~/` in the home directory. */
export function parseConfig(text: string, sourceName: string, baseDir: string): Config {
  let value: unknown;
  try {
    value = jsYaml.load(text);
  } catch (error) {
    // The reason and position only: js-yaml's message quotes the offending source line, which may hold a secret.
    const mark = error instanceof jsYaml.YAMLException ? error.mark : undefined;
    const where = mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : '';
    throw new ConfigError(sourceName, [`not valid YAML or JSON${where}: ${error instanceof jsYaml.YAMLException ? error.reason : 'unreadable'}`]);
  }
  // A key's own failure (propertyNames) is said once, by its propertyNames error, which names the key.
  const schemaProblems = validate(value) ? [] : (validate.errors ?? []).filter((e) => e.propertyName === undefined).map((e) => describe(e, value));
  const targetList = (value as { targets?: unknown } | null)?.targets;
  if (schemaProblems.length > 0 && !Array.isArray(targetList)) throw new ConfigError(sourceName, schemaProblems.map((p) => nameTargets(p, value)));
  // Every mistake at once: the checks beyond the schema run too, on what can be read of each target, so fixing the
  // schema's problems does not reveal another round. One a schema problem already says (the same field) is left out.
  const read = readTargets(value, baseDir, schemaProblems.length > 0);
  const fieldOf = (problem: string): string => problem.split(' ')[0] ?? problem;
  const saidBySchema = (problem: string): boolean => schemaProblems.some((s) => fieldOf(s).startsWith(fieldOf(problem)));
  const problems = [...schemaProblems, ...read.problems.filter((p) => !saidBySchema(p))];
  if (problems.length > 0) throw new ConfigError(sourceName, problems.map((p) => nameTargets(p, value)));
  return { targets: read.targets };
}

/**
 * The targets as the program uses them, and the problems the schema cannot see. With `schemaFailed`, a target whose
 * shape is too wrong to read is skipped (its schema problems say why), the others are judged as usual.
 */
function readTargets(value: unknown, baseDir: string, schemaFailed: boolean): { targets: TargetConfig[]; problems: string[] } {
  const raw = value as { targets: Array<Omit<TargetConfig, 'namespaces' | 'pullRequests' | 'guardrails' | 'prices' | 'stalledAfterSeconds' | 'growth' | 'modificationLimits'> & { stalledAfter?: string; guardrails?: GuardrailsConfig; growth?: GrowthConfigText; drivers?: DriversConfigText; prices?: { currency?: string; perGiBMonth: Record<string, number> }; namespaces: { default?: string; state?: string; allow: string[] }; pullRequests?: { validate?: boolean; recovery?: boolean; writeBack?: boolean; forks?: 'neutral' | 'validate' } }> };
  const problems: string[] = [];
  const seen = new Set<string>();
  const targets = raw.targets.flatMap((target, index): TargetConfig[] => {
    if (!schemaFailed) return [readTarget(target, index)];
    const before = problems.length;
    try {
      return [readTarget(target, index)];
    } catch {
      problems.length = before;
      return [];
    }
  });
  problems.push(...crossTargetProblems(targets));
  return { targets, problems };

  function readTarget(target: (typeof raw.targets)[number], index: number): TargetConfig {
    if (seen.has(target.name)) problems.push(`targets[${index}].name ${JSON.stringify(target.name)} is used by another target; names must be unique`);
    seen.add(target.name);
    const source = 'local' in target.source
      ? { local: { ...target.source.local, directory: resolvePath(baseDir, target.source.local.directory) } }
      : target.source;
    const cluster = 'kubeconfig' in target.cluster
      ? { kubeconfig: { ...target.cluster.kubeconfig, path: resolvePath(baseDir, target.cluster.kubeconfig.path) } }
      : target.cluster;
    if ('github' in source && source.github.app?.privateKey.file !== undefined) {
      source.github = { ...source.github, app: { ...source.github.app, privateKey: { file: resolvePath(baseDir, source.github.app.privateKey.file) } } };
    }
    for (const [field, name] of credentialReferences(source)) {
      if (looksLikeCredential(name)) problems.push(`targets[${index}].${field} must name where the credential is kept, but its value looks like the credential itself (not shown); move it to an environment variable or secret and name that`);
    }
    const recordKey = target.recordKey?.file !== undefined ? { file: resolvePath(baseDir, target.recordKey.file) } : target.recordKey;
    for (const field of ['env', 'secret'] as const) {
      const name = recordKey?.[field];
      if (name !== undefined && looksLikeCredential(name)) problems.push(`targets[${index}].recordKey.${field} must name where the key is kept, but its value looks like the key itself (not shown); move it to an environment variable or secret and name that`);
    }
    if ('github' in source && source.github.app && source.github.token) {
      problems.push(`targets[${index}].source.github has both token and app; choose one way to authenticate`);
    }
    // Optional in the file (the schema says so), always a list here.
    const sizeSources = (target.sizeSources as SizeSourceConfig[] | undefined) ?? [];
    problems.push(...sizeSourceProblems(sizeSources, `targets[${index}]`));
    problems.push(...guardrailProblems(target.guardrails ?? {}, sizeSources, target.prices !== undefined, `targets[${index}]`));
    problems.push(...stateNamespaceProblems(target.namespaces.state ?? defaultStateNamespace, target.namespaces.allow, `targets[${index}]`));
    const stalledAfterSeconds = parseDuration(target.stalledAfter ?? defaultStalledAfter);
    if (!stalledAfterSeconds) problems.push(`targets[${index}].stalledAfter ${shown(target.stalledAfter)} is no time at all; write a duration such as 30m, 1h or 1h30m`);
    const usage = usageWithPaths(target.usage, (path) => resolvePath(baseDir, path));
    if (usage) problems.push(...usageProblems(usage, `targets[${index}]`));
    const growth = target.growth ? readGrowthPolicy(target.growth, usage !== undefined, `targets[${index}]`) : undefined;
    problems.push(...(growth?.problems ?? []));
    const drivers = target.drivers ? readModificationLimits(target.drivers, `targets[${index}]`) : undefined;
    problems.push(...(drivers?.problems ?? []));
    return {
      name: target.name,
      source,
      cluster,
      sizeSources,
      ...(target.guardrails ? { guardrails: target.guardrails } : {}),
      ...(target.prices ? { prices: { currency: target.prices.currency ?? 'USD', perGiBMonth: target.prices.perGiBMonth } } : {}),
      namespaces: { default: target.namespaces.default ?? 'default', state: target.namespaces.state ?? defaultStateNamespace, allow: target.namespaces.allow },
      ...(recordKey !== undefined ? { recordKey } : {}),
      pullRequests: {
        validate: target.pullRequests?.validate ?? true, recovery: target.pullRequests?.recovery ?? true,
        writeBack: target.pullRequests?.writeBack ?? target.pullRequests?.recovery ?? true, forks: target.pullRequests?.forks ?? 'neutral',
      },
      ...(stalledAfterSeconds ? { stalledAfterSeconds } : {}),
      ...(usage ? { usage } : {}),
      ...(growth?.policy ? { growth: growth.policy } : {}),
      ...(drivers ? { modificationLimits: drivers.limits } : {}),
    };
  }
}

/** A state namespace listed as a workload namespace. `*` never covers it (engine/plan/allowed-namespaces.ts). */
function stateNamespaceProblems(state: string, allow: readonly string[], where: string): string[] {
  if (!allow.includes(state)) return [];
  return [`${where}.namespaces.state ${JSON.stringify(state)} is also in namespaces.allow: ${stateNamespaceWhy}; give the target a state `
    + `namespace of its own (leave namespaces.state unset for ${defaultStateNamespace}, which \`npx sts-volume-gitops rbac\` creates), or take it out of allow`];
}

/** One template sized by two mappings is ambiguous (a set named by a manifest and a mapping is found in Git, per pass). */
function sizeSourceProblems(sources: readonly SizeSourceConfig[], where: string): string[] {
  const problems: string[] = [];
  const first = new Map<string, number>();
  for (const [index, source] of sources.entries()) {
    const isClass = source.value === 'volumeAttributesClassName';
    const key = `${source.statefulSet} ${source.template}${isClass ? ' class' : ''}`;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, index);
    else problems.push(`${where}.sizeSources[${index}] maps ${source.statefulSet} template ${source.template}${isClass ? "'s volumeAttributesClassName" : ''}, which sizeSources[${earlier}] maps already; one template takes its ${isClass ? 'class' : 'size'} from one place`);
    if (isClass && source.guardrails !== undefined) problems.push(`${where}.sizeSources[${index}].guardrails limit sizes, and this mapping names a class (value: volumeAttributesClassName); put them on the template's size mapping or the target`);
  }
  return problems;
}

/** Sizes that are not quantities, and a cost limit with no prices to count a cost by. */
function guardrailProblems(target: GuardrailsConfig, sources: readonly SizeSourceConfig[], priced: boolean, where: string): string[] {
  const problems: string[] = [];
  const check = (guardrails: GuardrailsConfig | undefined, at: string): void => {
    if (guardrails?.maxSize !== undefined) {
      try {
        // A limit below 1Mi is a unit left out (`maxSize: 50`, 50 bytes), which would block every change.
        const implausible = implausibleSize(parseQuantity(guardrails.maxSize));
        if (implausible !== undefined) problems.push(`${at}.maxSize ${implausible} (no volume is that small: a size below 1Mi is refused)`);
      } catch (error) {
        if (!(error instanceof QuantityError)) throw error;
        problems.push(`${at}.maxSize ${shown(guardrails.maxSize)} is not a size: ${error.message}; write a quantity such as 2Ti`);
      }
    }
    if (guardrails?.maxMonthlyIncrease !== undefined && !priced) {
      problems.push(`${at}.maxMonthlyIncrease needs ${where}.prices (the price per GiB-month of each StorageClass) to count a change's cost`);
    }
  };
  check(target, `${where}.guardrails`);
  for (const [index, source] of sources.entries()) check(source.guardrails, `${where}.sizeSources[${index}].guardrails`);
  // Who writes a StatefulSet is one fact: its mappings must agree on it.
  const firstOwner = new Map<string, number>();
  for (const [index, source] of sources.entries()) {
    const earlier = firstOwner.get(source.statefulSet);
    if (earlier === undefined) {
      firstOwner.set(source.statefulSet, index);
      continue;
    }
    const ownerOf = (s: SizeSourceConfig | undefined): string => (s?.ownedBy ? `${s.ownedBy.kind}.${s.ownedBy.group ?? ''}` : '');
    if (ownerOf(sources[earlier]) !== ownerOf(source)) {
      problems.push(`${where}.sizeSources[${index}] and sizeSources[${earlier}] map ${source.statefulSet} but disagree on ownedBy; declare the same owner on both (or on neither)`);
    }
  }
  return problems;
}

/** The fields that name an environment variable or secret, with their values. */
function credentialReferences(source: TargetConfig['source']): Array<[field: string, name: string]> {
  if (!('github' in source)) return [];
  const { token, app } = source.github;
  const key = app?.privateKey;
  return [
    ...(token ? [['source.github.token.env', token.env] as [string, string]] : []),
    ...(key?.env !== undefined ? [['source.github.app.privateKey.env', key.env] as [string, string]] : []),
    ...(key?.secret !== undefined ? [['source.github.app.privateKey.secret', key.secret] as [string, string]] : []),
  ];
}

/** Reads the configuration from `path`, else from $STS_VOLUME_GITOPS_CONFIG. */
export async function loadConfig(path: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const chosen = path ?? env[configEnvironmentVariable];
  if (chosen === undefined || chosen === '') {
    throw new ConfigError('(none)', [`no configuration file given: pass --config FILE or set ${configEnvironmentVariable}`]);
  }
  let text: string;
  try {
    text = await readFile(chosen, 'utf8');
  } catch (error) {
    throw new ConfigError(chosen, [`cannot read ${chosen}: ${unreadable(error as NodeJS.ErrnoException)}`]);
  }
  return parseConfig(text, chosen, dirname(resolve(chosen)));
}

/** Why a file cannot be read, in words, with the system's code: `no such file (ENOENT)`. */
function unreadable(error: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a directory, not a file', ENOTDIR: 'a part of the path is not a directory',
  };
  const code = error.code;
  return code === undefined ? error.message : `${words[code] ?? 'the system refused'} (${code})`;
}
