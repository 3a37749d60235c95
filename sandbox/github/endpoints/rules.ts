// The rules that apply to a branch, as GitHub answers GET /repos/{owner}/{repo}/rules/branches/{branch} (any caller
// that may see the repository: Metadata read): the active rules of the repository's rulesets that target it. Tests
// give a branch a ruleset with `requireMergeQueue` or `requireStatusChecks`.
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches } from '../shapes.ts';
import type { GitHubState, Json } from '../state.ts';

export const ruleRoutes: Route[] = [];
const route = routeInto(ruleRoutes);

route('GET', `${repoPath}/rules/branches/{branch}`, 'repos.getBranchRules', async (ctx, [o, r, branch]) => {
  repoMatches(ctx, o, r);
  const name = decodeURIComponent(branch ?? '');
  return { body: ctx.state.rulesets.filter((set) => set.branches.includes(name)).flatMap((set) => set.rules.map((rule) => ({
    ...rule, ruleset_source_type: 'Repository', ruleset_source: `${ctx.state.owner}/${ctx.state.repo}`, ruleset_id: set.id,
  }))) };
});

/**
 * A ruleset on `branch` whose one rule requires status checks, each from the App `integrationId` names (absent: any
 * source), as the rules API reports it (`repository-rule-required-status-checks`).
 */
export function requireStatusChecks(state: GitHubState, branch: string, checks: Array<{ context: string; integrationId?: number }>): void {
  const rule: Json = {
    type: 'required_status_checks',
    parameters: {
      do_not_enforce_on_create: false, strict_required_status_checks_policy: false,
      required_status_checks: checks.map((c) => ({ context: c.context, ...(c.integrationId !== undefined ? { integration_id: c.integrationId } : {}) })),
    },
  };
  state.rulesets.push({ id: state.nextId++, name: `required checks on ${branch}`, branches: [branch], rules: [rule] });
}

/** A ruleset on `branch` whose one rule is a merge queue, with GitHub's default parameters. */
export function requireMergeQueue(state: GitHubState, branch: string): void {
  const rule: Json = {
    type: 'merge_queue',
    parameters: {
      check_response_timeout_minutes: 60, grouping_strategy: 'ALLGREEN', max_entries_to_build: 5, max_entries_to_merge: 5,
      merge_method: 'MERGE', min_entries_to_merge: 1, min_entries_to_merge_wait_minutes: 5,
    },
  };
  state.rulesets.push({ id: state.nextId++, name: `merge queue on ${branch}`, branches: [branch], rules: [rule] });
}
