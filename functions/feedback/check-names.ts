// The names of this tool's checks on GitHub (check runs, or commit statuses of the same names): one for pull requests
// and merge queue commits per target, one for each StatefulSet's progress after merge. Kept apart from what writes
// them, so the webhook can tell its own checks' Re-runs without bundling the planner.

/** `sts-volume-gitops/validate (<target>)`: a pull request's or merge queue commit's verdict. */
export function validateContext(target: string): string {
  return `sts-volume-gitops/validate (${target})`;
}

/** `sts-volume-gitops/<target>/<namespace>/<name>`: a StatefulSet's progress, on the commit that introduced its size. */
export function progressContext(target: string, sts: { namespace: string; name: string }): string {
  return `sts-volume-gitops/${target}/${sts.namespace}/${sts.name}`;
}

/** Whether `name` is one of `target`'s progress checks. */
export function isProgressContextOf(target: string, name: string): boolean {
  return name.startsWith(`sts-volume-gitops/${target}/`);
}
