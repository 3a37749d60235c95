// Whether a GitHub App installation receives merge queues' commits (pure): GitHub delivers `merge_group` only to an App
// granted "Merge queues: read" and subscribed to it. Without it, a merge queue that requires this tool's check waits
// for a verdict that never comes. Whether the branch has a merge queue is read from its rules (GET .../rules/branches,
// Metadata: read); a classic branch protection's queue cannot be seen with the App's permissions, so its absence is
// said as a warning, not as fine.
import { error, ok, warning, type CheckResult } from './check-result.ts';
import { permissionTitle } from './github-permissions.ts';

const subject = 'merge_queues: read';

/** `rules`: the branch's active rules (`type` of each), undefined when they could not be read. */
export function judgeMergeQueuePermission(input: {
  granted: Readonly<Record<string, string | undefined>>; branch: string; appId: number; rules: ReadonlyArray<{ type: string }> | undefined;
}): CheckResult {
  const { granted, branch, appId, rules } = input;
  const has = granted.merge_queues;
  if (has === 'read' || has === 'write') return ok('github.permissions', subject, `the installation has merge_queues: ${has}, so merge queues' commits are checked (merge_group)`);
  const fix = `in the settings of GitHub App ${appId} (Permissions & events), set "${permissionTitle('merge_queues')}" to Read-only and subscribe to `
    + '"Merge group", save, then accept the new permissions in the installation\'s settings (an organization owner must approve them)';
  if (rules?.some((rule) => rule.type === 'merge_queue')) {
    return error('github.permissions', subject, `a ruleset makes ${branch} merge through a merge queue, and the App installation has no merge_queues `
      + 'permission: GitHub delivers no merge_group event to it, so the queue waits for this tool\'s required check until it times out', fix);
  }
  const known = rules === undefined ? 'the branch\'s rules could not be read' : `no ruleset puts ${branch} behind a merge queue`;
  return warning('github.permissions', subject, `the App installation has no merge_queues permission, so GitHub delivers no merge_group event to it: `
    + `fine while ${branch} has no merge queue (${known}; a classic branch protection's is not visible to the App), `
    + 'but a queue that requires this tool\'s check would wait for it until it times out', fix);
}
