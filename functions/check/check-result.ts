// What `sts-volume-gitops check` finds, as data: one result per thing looked at, each ok, a warning or an error, with
// what to do about it. Probes produce these; the CLI renders them (text or --json) and turns them into an exit code.

/** `info`: worth knowing, nothing to do here (what another identity can tell, say); like ok, it never fails check. */
export type CheckLevel = 'ok' | 'info' | 'warning' | 'error';

export interface CheckResult {
  /** Which check, stable for scripts: `config`, `source.paths`, `github.permissions`, `cluster.access`, ... */
  id: string;
  level: CheckLevel;
  /** What was looked at: a file, a namespace, a permission, a StorageClass. */
  subject: string;
  message: string;
  /** What to do; absent when there is nothing to do. */
  fix?: string;
}

export interface TargetCheck {
  target: string;
  results: CheckResult[];
}

export function ok(id: string, subject: string, message: string): CheckResult {
  return { id, level: 'ok', subject, message };
}

export function info(id: string, subject: string, message: string, fix?: string): CheckResult {
  return { id, level: 'info', subject, message, ...(fix !== undefined ? { fix } : {}) };
}

export function warning(id: string, subject: string, message: string, fix?: string): CheckResult {
  return { id, level: 'warning', subject, message, ...(fix !== undefined ? { fix } : {}) };
}

export function error(id: string, subject: string, message: string, fix?: string): CheckResult {
  return { id, level: 'error', subject, message, ...(fix !== undefined ? { fix } : {}) };
}

/** 0 when nothing is wrong (warnings included), 1 when any check found an error; like `plan`. */
export function exitCodeOfChecks(checks: readonly TargetCheck[]): 0 | 1 {
  return checks.some((c) => c.results.some((r) => r.level === 'error')) ? 1 : 0;
}
