// A classic branch protection rule's required status checks: GET .../branches/{branch}/protection/required_status_checks
// (`status-check-policy`: each check's context and the App it must come from, `app_id`, null for any). GitHub answers
// it to a person with admin rights on the repository, and to an installation granted `administration: read`
// (installation-permissions.ts); a person without them gets 404, as if there were nothing there. An unprotected
// branch is 404 "Branch not protected", a protected one without status checks 404 "Required status checks not enabled".
import { GitHubError, notFound } from '../errors.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches, repoUrl } from '../shapes.ts';
import type { GitHubState } from '../state.ts';

export const branchProtectionRoutes: Route[] = [];
const route = routeInto(branchProtectionRoutes);

const documentation = 'https://docs.github.com/rest/branches/branch-protection#get-status-checks-protection';

route('GET', `${repoPath}/branches/{branch}/protection/required_status_checks`, 'repos.getStatusChecksProtection', async (ctx, [o, r, branch = ''], _q, _body, caller) => {
  repoMatches(ctx, o, r);
  if (caller.credential === 'token' && caller.role !== 'admin') throw notFound();
  if (!await ctx.state.git.resolve(`refs/heads/${branch}`)) throw new GitHubError(404, 'Branch not found', undefined, {}, documentation);
  const protection = ctx.state.branchProtections[branch];
  if (!protection) throw new GitHubError(404, 'Branch not protected', undefined, {}, documentation);
  const required = protection.requiredStatusChecks;
  if (!required) throw new GitHubError(404, 'Required status checks not enabled', undefined, {}, documentation);
  const url = `${repoUrl(ctx)}/branches/${encodeURIComponent(branch)}/protection/required_status_checks`;
  return {
    body: {
      url, strict: required.strict, contexts: required.checks.map((c) => c.context), contexts_url: `${url}/contexts`,
      checks: required.checks.map((c) => ({ context: c.context, app_id: c.appId })),
    },
  };
});

/** Protects `branch` with required status checks, each from the App `appId` names (null: any source), as the settings page does. */
export function protectBranch(state: GitHubState, branch: string, checks: Array<{ context: string; appId: number | null }>): void {
  state.branchProtections[branch] = { requiredStatusChecks: { strict: false, checks } };
}
