// The messages of the worker's per-pass log lines, which the dashboard's Logs Insights tables filter on. Their own
// file so that the stack reads them without loading what the Lambda entries load.
export const passLogMessages = {
  finished: 'pass finished',
  targetFailed: 'target failed',
  targetFailedAfterPass: 'target failed after its pass',
  /** One line per problem a pass found: a failed or blocked StatefulSet, a manifest error, a refused record. */
  needsAction: 'needs action',
  /** One line per status or check run under the tool's check name that the tool did not write. */
  foreignVerdict: 'foreign verdict',
  /** A pass that could not read its volumes' usage: growth is skipped for it, nothing else. */
  usageReadFailed: 'usage read failed',
} as const;
