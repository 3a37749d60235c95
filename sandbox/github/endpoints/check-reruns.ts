// Asking for checks again, as the Re-run buttons do: GitHub queues the App's suite again, leaves the runs as they were
// and sends the App `check_run` (or `check_suite`) `rerequested` (events.ts), which it answers with the checks.
import { GitHubError, notFound } from '../errors.ts';
import { checkRunRerequested, checkSuiteRerequested } from '../events.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches } from '../shapes.ts';
import type { CheckRun, Identity } from '../state.ts';
import { findRun, suiteId } from './check-runs.ts';

export const checkRerunRoutes: Route[] = [];
const route = routeInto(checkRerunRoutes);

/**
 * "Re-run": GitHub queues the run's suite again, leaves the run as it was and sends the App `check_run` `rerequested`.
 * An App may ask again only for its own runs; a person needs write access (the Re-run button's).
 */
route('POST', `${repoPath}/check-runs/{id}/rerequest`, 'checks.rerequestRun', async (ctx, [o, r, id], _q, _body, caller) => {
  repoMatches(ctx, o, r);
  const run = findRun(ctx, id);
  mayRerequest(caller, [run], 'https://docs.github.com/rest/checks/runs#rerequest-a-check-run');
  void checkRunRerequested(ctx, run, caller.login);
  return { status: 201, body: {} };
});

/** "Re-run all checks" on a commit: the App's suite is queued again and the App is sent `check_suite` `rerequested`. */
route('POST', `${repoPath}/check-suites/{id}/rerequest`, 'checks.rerequestSuite', async (ctx, [o, r, id], _q, _body, caller) => {
  repoMatches(ctx, o, r);
  const runs = ctx.state.checkRuns.filter((run) => suiteId(run.headSha) === Number(id));
  const [first] = runs;
  if (!first) throw notFound();
  mayRerequest(caller, runs, 'https://docs.github.com/rest/checks/suites#rerequest-a-check-suite');
  void checkSuiteRerequested(ctx, runs, caller.login);
  return { status: 201, body: {} };
});

function mayRerequest(caller: Identity, runs: readonly CheckRun[], documentation: string): void {
  if (caller.credential === 'installation' ? runs.some((run) => run.creator !== caller.login) : caller.role === 'read' || caller.role === 'triage') {
    throw new GitHubError(403, 'Resource not accessible by integration', undefined, {}, documentation);
  }
}
