// Whether the target branch requires this tool's check from the tool's GitHub App (pure). A required check is met by
// any commit status or check run of its name (a collaborator's status, a workflow job named like it) unless the rule
// names the App it must come from: branch protection's `required_status_checks.checks[].app_id`, a ruleset's
// `required_status_checks[].integration_id`. Rulesets are read with Metadata: read (GET .../rules/branches/{branch});
// branch protection only with admin rights (a token) or Administration: read (an App), so without them this says it
// cannot tell. A token cannot be required as a source at all: anyone who may write statuses can meet the check.
import { error, ok, warning, type CheckResult } from './check-result.ts';

/** One requirement of the check's name: where it is set, and the App it must come from (undefined: any source). */
export interface CheckRequirement {
  where: string;
  appId: number | undefined;
}

/** What a reading of branch protection or the rulesets gave: the requirements of the check's name, or why none was read. */
export type RequirementReading = { read: CheckRequirement[] } | { unreadable: string };

export interface RequiredCheckInput {
  context: string;
  branch: string;
  /** The App the tool authenticates as; undefined for a token. */
  appId: number | undefined;
  protection: RequirementReading;
  rulesets: RequirementReading;
}

const id = 'github.required-check';

/** How to require the check from the App, in the settings a repository admin edits. */
function pinFix(context: string, branch: string, appId: number): string {
  return `in Settings > Branches, edit the rule for ${branch}: under "Require status checks to pass", add ${context} and pick this tool's App (id ${appId}) `
    + `as its source, not "any source"; in a ruleset (Settings > Rules), add the check with the App as its source (integration_id ${appId})`;
}

export function judgeRequiredCheckSource(input: RequiredCheckInput): CheckResult {
  const { context, branch, appId } = input;
  const requirements = [input.protection, input.rulesets].flatMap((r) => ('read' in r ? r.read : []));
  const unread = [input.protection, input.rulesets].flatMap((r) => ('unreadable' in r ? [r.unreadable] : []));
  if (appId === undefined) {
    return warning(id, context, `with a token, ${context} is a commit status anyone who may write statuses to the repository can set: `
      + `${requirements.length > 0 ? `${branch} requires it, but` : 'even when required,'} a collaborator's status of that name turns it green`,
    'authenticate as a GitHub App (source.github.app), then require the check with the App as its source');
  }
  const pinned = requirements.filter((r) => r.appId === appId);
  const elsewhere = requirements.filter((r) => r.appId !== undefined && r.appId !== appId);
  const open = requirements.filter((r) => r.appId === undefined);
  if (elsewhere.length > 0) {
    return error(id, context, `${elsewhere.map((r) => r.where).join(' and ')} require${elsewhere.length === 1 ? 's' : ''} ${context} from App ${elsewhere.map((r) => r.appId).join(', ')}, `
      + `not this tool's App ${appId}: its check does not count, and no pull request into ${branch} can merge`, pinFix(context, branch, appId));
  }
  if (pinned.length > 0) {
    return ok(id, context, `${pinned.map((r) => r.where).join(' and ')} require${pinned.length === 1 ? 's' : ''} ${context} from this tool's App ${appId}: `
      + 'a status or check run of that name from anyone else does not count');
  }
  const cannotTell = unread.length > 0 ? `cannot tell what ${unread.join(', nor what ')}` : '';
  if (open.length > 0) {
    return warning(id, context, `${open.map((r) => r.where).join(' and ')} require${open.length === 1 ? 's' : ''} ${context} from any source: a collaborator's commit `
      + `status of that name, or a workflow job named like it, turns it green${cannotTell ? `; ${cannotTell}` : ''}`, pinFix(context, branch, appId));
  }
  if (unread.length > 0) {
    return warning(id, context, `${cannotTell}${unread.length < 2 ? ` (the other rules do not require ${context})` : ''}: unless a rule requires `
      + `${context} from this tool's App, a pull request into ${branch} can merge whatever its verdict, or with a status anyone sets`,
    `${pinFix(context, branch, appId)}; to have check read it, grant what it says it needs`);
  }
  return warning(id, context, `no rule requires ${context} on ${branch}: a pull request can merge whatever its verdict`, pinFix(context, branch, appId));
}
