// What a GitHub App for this tool is set up with, as one table: the repository permissions (those the tool's calls
// need, from github-permissions.ts, with Metadata, which every App has, and those GitHub requires before it delivers
// an event) and the webhook events the webhook acts on (one per payload reader). README.md and infra/README.md show
// it rendered by `renderAppPermissions` and `renderAppEvents`; test/docs/github-app-docs.test.ts keeps them so.
import type { WebhookDelivery } from '../app/webhook-payloads.ts';
import { neededGitHubPermissions, permissionTitle, titleOf, type PermissionLevel } from './github-permissions.ts';

export interface AppPermissionRow {
  permission: string;
  level: PermissionLevel;
  /** The lower level that does, and when. */
  lowerWhen?: { level: PermissionLevel; when: string };
  why: string;
}

export interface AppEventSetting {
  /** The permission GitHub requires before it offers the event in "Subscribe to events". */
  needs: string;
  /** The event as "Subscribe to events" lists it. */
  title: string;
  what: string;
}

/** Every event the webhook reads (a new payload reader does not compile without its row here). */
export const appEvents: Readonly<Record<WebhookDelivery['event'], AppEventSetting>> = {
  check_run: { title: 'Check run', needs: 'checks', what: 'Re-run on one of its checks plans that pull request again (or, on a progress check, runs a pass) at once, not at the next scheduled slot' },
  check_suite: { title: 'Check suite', needs: 'checks', what: 'Re-run all checks on a commit checks its pull requests again (on the target\'s branch, runs a pass)' },
  merge_group: { title: 'Merge group', needs: 'merge_queues', what: 'a merge queue\'s commit is checked, so a required check does not keep the queue waiting' },
  pull_request: { title: 'Pull request', needs: 'pull_requests', what: 'a pull request into a target\'s branch is checked within seconds (reads and dry runs only)' },
  push: { title: 'Push', needs: 'contents', what: 'a push to a target\'s branch runs a pass (which applies) right away, not at the next scheduled slot' },
};

/** The repository permissions, each at the level the default configuration (recovery pull requests on) needs. */
export function appPermissionRows(): AppPermissionRow[] {
  const withRecovery = neededGitHubPermissions({ validate: true, recovery: true, writeBack: true, forks: 'neutral' }, { checkRuns: true });
  const withoutRecovery = neededGitHubPermissions({ validate: true, recovery: false, writeBack: false, forks: 'neutral' }, { checkRuns: true });
  const rows: AppPermissionRow[] = [{ permission: 'metadata', level: 'read', why: 'mandatory for every GitHub App' }];
  for (const need of withRecovery) {
    const lower = withoutRecovery.find((n) => n.permission === need.permission && n.level !== need.level);
    rows.push({
      permission: need.permission, level: need.level, why: `${need.why}${need.withoutIt === undefined ? '' : ` (without it, ${need.withoutIt})`}`,
      ...(lower ? { lowerWhen: { level: lower.level, when: '`pullRequests.recovery: false`' } } : {}),
    });
  }
  for (const [event, setting] of Object.entries(appEvents)) {
    if (!rows.some((row) => row.permission === setting.needs)) rows.push({ permission: setting.needs, level: 'read', why: `to receive the \`${event}\` event (GitHub requires it)` });
  }
  return rows;
}

export function renderAppPermissions(): string {
  return table(['Permission', 'Access', 'Used for'], appPermissionRows().map((row) => [
    permissionTitle(row.permission),
    `${titleOf(row.level)}${row.lowerWhen ? ` (${titleOf(row.lowerWhen.level)} with ${row.lowerWhen.when})` : ''}`,
    row.why,
  ]));
}

export function renderAppEvents(): string {
  return table(['Event', 'Subscribe to', 'Needs the permission', 'What it does'], Object.entries(appEvents).map(([event, setting]) => [
    `\`${event}\``, setting.title, permissionTitle(setting.needs), setting.what,
  ]));
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
