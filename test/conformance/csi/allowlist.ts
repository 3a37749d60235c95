// The CSI replay's allowlist: each entry names one kind of difference (a check, and a pattern over the difference's
// text) and says why the sandbox may differ there. An entry that matches nothing fails the replay, so the list stays
// true as the sandbox learns.
import { readFileSync } from 'node:fs';

export interface CsiAllowlistEntry {
  /** The scenario folder (a, b, c, d); every one when absent. */
  scenario?: string;
  /** The check, exactly: `states <claim>`, `snapshots <claim>`, `events <selector>`, `answer`, `volume of <claim>`. */
  check: string;
  /** A regular expression the difference's text must match. */
  difference: string;
  reason: string;
}

export function loadCsiAllowlist(file = new URL('./allowlist.json', import.meta.url)): CsiAllowlistEntry[] {
  const entries = JSON.parse(readFileSync(file, 'utf8')) as CsiAllowlistEntry[];
  for (const entry of entries) {
    if (typeof entry.reason !== 'string' || entry.reason.trim() === '') throw new Error(`allowlist entry without a reason: ${JSON.stringify(entry)}`);
    if (typeof entry.check !== 'string' || typeof entry.difference !== 'string') throw new Error(`allowlist entry must name check and difference: ${JSON.stringify(entry)}`);
  }
  return entries;
}

/** The index of the entry allowing this difference, if any. */
export function allowed(entries: readonly CsiAllowlistEntry[], scenario: string, check: string, difference: string): number | undefined {
  const index = entries.findIndex((e) => (e.scenario === undefined || e.scenario === scenario) && e.check === check && new RegExp(e.difference).test(difference));
  return index >= 0 ? index : undefined;
}

/** Differences found by one check of one scenario. */
export interface CheckResult {
  scenario: string;
  check: string;
  differences: string[];
}

/**
 * Each difference either allowed by an entry or a failure (`scenario/ check: difference`); and the entries that allowed
 * nothing (`check /pattern/: reason`), which must go.
 */
export function judge(entries: readonly CsiAllowlistEntry[], checks: readonly CheckResult[]): { failures: string[]; unused: string[]; allowedCount: number } {
  const used = new Set<number>();
  const failures: string[] = [];
  let allowedCount = 0;
  for (const { scenario, check, differences } of checks) {
    for (const difference of differences) {
      const entry = allowed(entries, scenario, check, difference);
      if (entry === undefined) failures.push(`${scenario}/ ${check}: ${difference}`);
      else {
        used.add(entry);
        allowedCount += 1;
      }
    }
  }
  const unused = entries.filter((_, i) => !used.has(i)).map((e) => `${e.check} /${e.difference}/: ${e.reason}`);
  return { failures, unused, allowedCount };
}
