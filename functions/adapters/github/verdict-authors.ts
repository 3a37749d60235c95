// Who wrote a verdict under this tool's check name (Octokit only). A required check is met by any commit status or
// check run of its name unless the branch requires it from one App: a collaborator's status, another App's, or a
// workflow job named like the check turns it green. This tool's own are told by their author: a status by its
// `creator` (the token's user, by id; an App's bot user, `<slug>[bot]`), a check run by its `app.id`. Who "we" are is
// asked of GitHub once per host (GET /user for a token, GET /app with the App's JWT), never taken from a name in the
// configuration.
import type { ForeignVerdict } from '../../engine/ports.ts';
import { listAll } from './list-all.ts';
import type { GitHubClient, RepoRef } from './octokit.ts';

type Creator = { login: string; id: number } | null | undefined;

export class VerdictAuthors {
  private self: Promise<{ login: string; id?: number }> | undefined;

  /** `appId`: the App the host acts as (its installation token); undefined for a token. */
  constructor(private readonly octokit: GitHubClient, private readonly repo: RepoRef, private readonly appId: number | undefined) {}

  private identity(): Promise<{ login: string; id?: number }> {
    this.self ??= (this.appId !== undefined
      ? this.octokit.rest.apps.getAuthenticated().then((app) => ({ login: `${app.data?.slug ?? ''}[bot]` }))
      : this.octokit.rest.users.getAuthenticated().then((user) => ({ login: user.data.login, id: user.data.id })))
      .catch((error: unknown) => {
        this.self = undefined;
        throw error;
      });
    return this.self;
  }

  /** Whether a status's creator is this tool's identity. */
  async wroteStatus(creator: Creator): Promise<boolean> {
    if (!creator) return false;
    const self = await this.identity();
    return self.id !== undefined ? creator.id === self.id : creator.login.toLowerCase() === self.login.toLowerCase();
  }

  /** Statuses of `context` on `sha`, newest first, each with whether this tool wrote it. */
  async statuses(sha: string, context: string): Promise<Array<{ state: string; description: string | null; targetUrl: string | null; ours: boolean; by: string }>> {
    const all = await listAll((page) => this.octokit.rest.repos.listCommitStatusesForRef({ ...this.repo, ref: sha, ...page }));
    const mine = all.filter((s) => s.context === context);
    return Promise.all(mine.map(async (s) => ({
      state: s.state, description: s.description, targetUrl: s.target_url, ours: await this.wroteStatus(s.creator), by: s.creator?.login ?? 'an unknown account',
    })));
  }

  /** Statuses and check runs of `context` on `sha` that this tool did not write: the latest of each author, newest first. */
  async foreign(sha: string, context: string): Promise<ForeignVerdict[]> {
    const statuses = (await this.statuses(sha, context)).filter((s) => !s.ours)
      .map((s): ForeignVerdict => ({ kind: 'status', by: s.by, state: s.state, ...(s.description ? { description: s.description } : {}) }));
    return latestOfEach([...statuses, ...await this.foreignCheckRuns(sha, context)]);
  }

  private async foreignCheckRuns(sha: string, context: string): Promise<ForeignVerdict[]> {
    let runs;
    try {
      runs = await listAll(async (page) => {
        const answer = await this.octokit.rest.checks.listForRef({ ...this.repo, ref: sha, check_name: context, filter: 'all', ...page });
        return { ...answer, data: answer.data.check_runs };
      });
    } catch (error) {
      // An App without the Checks permission cannot list check runs: what it cannot see, it cannot report.
      if ((error as { status?: number }).status === 403) return [];
      throw error;
    }
    return runs.filter((run) => this.appId === undefined || run.app?.id !== this.appId).map((run) => ({
      kind: 'check run', by: run.app?.name ?? 'an unknown App', state: run.conclusion ?? run.status,
      ...(run.output.title ? { description: run.output.title } : {}),
    }));
  }
}

/** The first (newest) verdict of each author and kind. */
function latestOfEach(verdicts: readonly ForeignVerdict[]): ForeignVerdict[] {
  const seen = new Set<string>();
  return verdicts.filter((v) => {
    const key = `${v.kind} ${v.by}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
