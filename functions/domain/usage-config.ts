// A target's usage and growth settings (issue 36): where volume usage is read (`usage.prometheus`), when growth is
// proposed (`growth`), and what is known of each CSI driver (`drivers`: the backend's modification limit). The schema
// checks the shapes; what it cannot say (a step below 1Gi, a max that is no size, a URL carrying a password) is said here.
import { parseDuration } from './duration.ts';
import { parseQuantity, QuantityError, type Quantity } from './quantity.ts';
import { looksLikeCredential, shown } from './config-problems.ts';
import { defaultModificationLimits, limitOfCooldown, type ModificationLimit } from './modification-limit.ts';

/** Where a credential is kept (the same shape as `recordKey`): exactly one field. */
export interface SecretReference {
  secret?: string;
  env?: string;
  file?: string;
}

export type PrometheusAuth = { sigv4: { region: string; service?: string } } | { bearer: SecretReference };

export interface UsageConfig {
  prometheus: {
    /** The base of the Prometheus HTTP API; queries go to `<url>/api/v1/query`. */
    url: string;
    /** Absent: no authentication (a Prometheus in the cluster's network). */
    auth?: PrometheusAuth;
  };
}

/** What one growth adds: a percentage of the current size, or a fixed size. */
export type GrowthStep = { percent: number } | { size: string };

/** The growth policy of a target, defaults filled in; every size in it was checked to be a quantity. */
export interface GrowthPolicy {
  /** A volume whose bytes or inodes are this full (percent of the kubelet's capacity) is proposed growth. */
  usedPercent: number;
  /** Or one that fills within this many seconds at the pace of the last day; undefined: fullness alone. */
  fullWithinSeconds?: number;
  step: GrowthStep;
  /** The largest size growth ever proposes, as written (`500Gi`). */
  max: string;
  /** Growth pull requests open at once, per target. */
  openAtOnce: number;
}

/** The growth section as written in the file. */
export interface GrowthConfigText {
  usedPercent?: number;
  fullWithin?: string;
  step?: string | number;
  max: string | number;
  openAtOnce?: number;
}

export const defaultUsedPercent = 80;
export const defaultGrowthStep = '50%';
export const defaultOpenAtOnce = 5;

/** The smallest step growth takes: below it, a pull request and a volume modification are not worth their cost. */
export const smallestGrowthStep = parseQuantity('1Gi');

/**
 * `drivers` as written: per CSI driver name, `modificationLimit: { count: 4, per: 24h }`, or the older
 * `modificationCooldown: 6h` (one modification per 6h); never both.
 */
export type DriversConfigText = Record<string, { modificationCooldown?: string; modificationLimit?: { count: number; per: string } }>;

/** A step as written (`50%`, `20Gi`): a percentage or a quantity of at least 1Gi; a sentence when it is neither. */
export function readGrowthStep(text: string | number, where: string): GrowthStep | string {
  const written = String(text).trim();
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(written);
  if (percent) {
    const value = Number(percent[1]);
    return value > 0 ? { percent: value } : `${where} ${shown(text)} adds nothing; write a percentage above 0 (50%) or a size of at least 1Gi`;
  }
  let size: Quantity;
  try {
    size = parseQuantity(text);
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    return `${where} ${shown(text)} is neither a percentage (50%) nor a size (20Gi): ${error.message}`;
  }
  if (size.bytes < smallestGrowthStep.bytes) return `${where} ${shown(text)} is less than 1Gi, the smallest step growth takes; write 1Gi or more, or a percentage`;
  return { size: size.text };
}

/** A size setting (`max`) as written: a quantity of at least 1Gi, or a sentence saying what is wrong. */
export function readGrowthMax(text: string | number, where: string): Quantity | string {
  try {
    const max = parseQuantity(text);
    return max.bytes < smallestGrowthStep.bytes ? `${where} ${shown(text)} is less than 1Gi; write the largest size growth may propose, such as 500Gi` : max;
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    return `${where} ${shown(text)} is not a size: ${error.message}; write a quantity such as 500Gi`;
  }
}

/** The growth policy with its defaults, and the problems the schema cannot see. */
export function readGrowthPolicy(growth: GrowthConfigText, hasUsage: boolean, where: string): { policy: GrowthPolicy | undefined; problems: string[] } {
  const problems: string[] = [];
  if (!hasUsage) problems.push(`${where}.growth needs ${where}.usage.prometheus: growth is proposed from the usage read there`);
  const step = readGrowthStep(growth.step ?? defaultGrowthStep, `${where}.growth.step`);
  if (typeof step === 'string') problems.push(step);
  const max = readGrowthMax(growth.max, `${where}.growth.max`);
  if (typeof max === 'string') problems.push(max);
  let fullWithinSeconds: number | undefined;
  if (growth.fullWithin !== undefined) {
    fullWithinSeconds = parseDuration(growth.fullWithin);
    if (!fullWithinSeconds) problems.push(`${where}.growth.fullWithin ${shown(growth.fullWithin)} is no time at all; write a duration such as 7d or 36h`);
  }
  if (problems.length > 0 || typeof step === 'string' || typeof max === 'string') return { policy: undefined, problems };
  return {
    policy: {
      usedPercent: growth.usedPercent ?? defaultUsedPercent,
      ...(fullWithinSeconds ? { fullWithinSeconds } : {}),
      step, max: max.text, openAtOnce: growth.openAtOnce ?? defaultOpenAtOnce,
    },
    problems,
  };
}

/** The usage settings with a bearer token's file resolved as the configuration's other paths are. */
export function usageWithPaths(usage: UsageConfig | undefined, resolvePath: (path: string) => string): UsageConfig | undefined {
  const auth = usage?.prometheus.auth;
  if (!usage || !auth || !('bearer' in auth) || auth.bearer.file === undefined) return usage;
  return { prometheus: { ...usage.prometheus, auth: { bearer: { file: resolvePath(auth.bearer.file) } } } };
}

/** What the schema cannot see of `usage`: a URL carrying a user or password, a bearer reference holding the token itself. */
export function usageProblems(usage: UsageConfig, where: string): string[] {
  const problems: string[] = [];
  // A credential in the URL would reach every log line and error that names the source: it is refused, never shown.
  if (/^https?:\/\/[^/]*@/.test(usage.prometheus.url)) {
    problems.push(`${where}.usage.prometheus.url carries a user or password (not shown); take it out of the URL and use auth.bearer (or sigv4)`);
  }
  const auth = usage.prometheus.auth;
  if (auth && 'bearer' in auth) {
    for (const field of ['env', 'secret'] as const) {
      const name = auth.bearer[field];
      if (name !== undefined && looksLikeCredential(name)) {
        problems.push(`${where}.usage.prometheus.auth.bearer.${field} must name where the token is kept, but its value looks like the token itself (not shown); move it to an environment variable or secret and name that`);
      }
    }
  }
  return problems;
}

/** Each driver's modification limit: the defaults (domain/modification-limit.ts), then the configuration's. */
export function readModificationLimits(drivers: DriversConfigText | undefined, where: string): { limits: Record<string, ModificationLimit>; problems: string[] } {
  const limits: Record<string, ModificationLimit> = { ...defaultModificationLimits };
  const problems: string[] = [];
  for (const [driver, settings] of Object.entries(drivers ?? {})) {
    const at = `${where}.drivers.${driver}`;
    const { modificationCooldown: cooldown, modificationLimit: limit } = settings;
    if (cooldown !== undefined && limit !== undefined) {
      problems.push(`${at} sets both modificationLimit and modificationCooldown; keep modificationLimit (modificationCooldown: 6h is the older way to write modificationLimit: { count: 1, per: 6h })`);
      continue;
    }
    if (limit !== undefined) {
      const seconds = parseDuration(limit.per);
      if (seconds === undefined) problems.push(`${at}.modificationLimit.per ${shown(limit.per)} is not a duration such as 24h, 6h or 30m`);
      else if (!Number.isInteger(limit.count) || limit.count < 1) problems.push(`${at}.modificationLimit.count ${shown(limit.count)} is not a whole number of modifications of at least 1`);
      else limits[driver] = { count: limit.count, perSeconds: seconds };
    } else if (cooldown !== undefined) {
      const old = limitOfCooldown(cooldown);
      if (old === undefined) problems.push(`${at}.modificationCooldown ${shown(cooldown)} is not a duration such as 6h or 30m`);
      else limits[driver] = old;
    }
  }
  return { limits, problems };
}
