// Check runs (the Checks API): created and updated only by a GitHub App installation with `checks: write`, at most 50
// annotations a request (more are appended by updates, never replaced), summary and text up to 65,535 characters;
// listed per commit (the latest run of each name unless `filter=all`) and their annotations read back.
import { GitHubError, notFound } from '../errors.ts';
import { paginate } from '../paging.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { htmlUrl, now, repoMatches, repoUrl } from '../shapes.ts';
import type { CheckRun, CheckRunAnnotation, GitHubServerContext, Identity, Json } from '../state.ts';
import { appJson, otherAppJson } from './installations.ts';

export const checkRunRoutes: Route[] = [];
const route = routeInto(checkRunRoutes);

const maxAnnotationsPerRequest = 50;
const maxOutputCharacters = 65_535;
const statuses = ['queued', 'in_progress', 'completed'] as const;
const conclusions = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'timed_out'];
const levels = ['notice', 'warning', 'failure'] as const;

/** GitHub's answer to a body its request schema refuses: 422 `Invalid request.` and what was wrong. */
function invalidRequest(detail: string): GitHubError {
  return new GitHubError(422, `Invalid request.\n\n${detail}`, undefined, {}, 'https://docs.github.com/rest/checks/runs');
}

/** Only an installation of an App with `checks: write` writes check runs (a person's token never may). */
function mayWrite(ctx: GitHubServerContext, caller: Identity, operation: 'create' | 'update'): void {
  const documentation = `https://docs.github.com/rest/checks/runs#${operation}-a-check-run`;
  if (caller.credential !== 'installation') throw new GitHubError(403, 'You must authenticate via a GitHub App.', undefined, {}, documentation);
  if (ctx.state.installationPermissions.checks !== 'write') {
    throw new GitHubError(403, 'Resource not accessible by integration', undefined, { 'x-accepted-github-permissions': 'checks=write' }, documentation);
  }
}

function readAnnotations(value: unknown): CheckRunAnnotation[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidRequest('For \'properties/annotations\', it is not an array.');
  if (value.length > maxAnnotationsPerRequest) throw invalidRequest(`No more than ${maxAnnotationsPerRequest} items are allowed; ${value.length} were supplied.`);
  return value.map((item: Json) => {
    for (const field of ['path', 'start_line', 'end_line', 'annotation_level', 'message']) {
      if (item[field] === undefined) throw invalidRequest(`"${field}" wasn't supplied.`);
    }
    const level = item.annotation_level;
    if (!levels.includes(level as never)) throw invalidRequest(`For 'properties/annotation_level', ${JSON.stringify(level)} is not a member of ["notice", "warning", "failure"].`);
    const startLine = Number(item.start_line);
    const endLine = Number(item.end_line);
    if (!Number.isInteger(startLine) || !Number.isInteger(endLine) || startLine < 1 || endLine < startLine) throw invalidRequest('start_line and end_line must be lines of the file, end_line not before start_line.');
    return {
      path: String(item.path), startLine, endLine, startColumn: typeof item.start_column === 'number' ? item.start_column : null,
      endColumn: typeof item.end_column === 'number' ? item.end_column : null, level: level as CheckRunAnnotation['level'],
      title: typeof item.title === 'string' ? item.title : null, message: String(item.message), rawDetails: typeof item.raw_details === 'string' ? item.raw_details : null,
    };
  });
}

/** Applies `body`'s fields to `run` (a new one or one being updated), as GitHub validates them. */
function applyFields(run: CheckRun, body: Json): void {
  if (body.status !== undefined && !statuses.includes(body.status as never)) throw invalidRequest(`For 'properties/status', ${JSON.stringify(body.status)} is not a member of ["queued", "in_progress", "completed"].`);
  if (body.conclusion !== undefined && body.conclusion !== null && !conclusions.includes(body.conclusion as string)) {
    throw invalidRequest(`For 'properties/conclusion', ${JSON.stringify(body.conclusion)} is not a member of ${JSON.stringify(conclusions)}.`);
  }
  if (typeof body.name === 'string') run.name = body.name;
  if (typeof body.details_url === 'string') run.detailsUrl = body.details_url;
  if (typeof body.external_id === 'string') run.externalId = body.external_id;
  if (typeof body.started_at === 'string') run.startedAt = body.started_at;
  // Giving a conclusion completes the run; completing it needs one.
  if (typeof body.conclusion === 'string') {
    run.conclusion = body.conclusion;
    run.status = 'completed';
    run.completedAt = typeof body.completed_at === 'string' ? body.completed_at : now();
  } else if (body.status !== undefined) {
    if (body.status === 'completed' || body.completed_at !== undefined) throw invalidRequest('"conclusion" wasn\'t supplied.');
    run.status = body.status as CheckRun['status'];
    run.conclusion = null;
    run.completedAt = null;
  }
  if (body.output !== undefined) {
    const output = body.output as Json;
    if (typeof output !== 'object' || output === null) throw invalidRequest('For \'properties/output\', it is not an object.');
    for (const field of ['title', 'summary']) if (typeof output[field] !== 'string') throw invalidRequest(`"${field}" wasn't supplied.`);
    for (const field of ['summary', 'text']) {
      const text = output[field];
      if (typeof text === 'string' && text.length > maxOutputCharacters) throw invalidRequest(`For 'properties/${field}', the maximum length is ${maxOutputCharacters}; ${text.length} characters were supplied.`);
    }
    const annotations = readAnnotations(output.annotations);
    run.output = { title: output.title as string, summary: output.summary as string, text: typeof output.text === 'string' ? output.text : run.output.text };
    run.annotations.push(...annotations);
  }
}

/** One suite per commit for the App (GitHub makes it with the first run). */
export function suiteId(sha: string): number {
  return Number.parseInt(sha.slice(0, 8), 16) || 1;
}

export function checkRunJson(ctx: GitHubServerContext, run: CheckRun): Json {
  const url = `${repoUrl(ctx)}/check-runs/${run.id}`;
  // As GitHub lists them: open pull requests of this repository whose head is the commit (a fork's are never listed).
  const pulls = ctx.state.pulls.filter((p) => p.state === 'open' && p.headSha === run.headSha && p.headOwner === ctx.state.owner).map((p) => ({
    id: p.number, number: p.number, url: `${repoUrl(ctx)}/pulls/${p.number}`,
    head: { ref: p.head, sha: p.headSha, repo: { id: 1, url: repoUrl(ctx, p.headOwner), name: ctx.state.repo } },
    base: { ref: p.base, sha: p.baseSha, repo: { id: 1, url: repoUrl(ctx), name: ctx.state.repo } },
  }));
  return {
    id: run.id, head_sha: run.headSha, node_id: `CR_${run.id}`, external_id: run.externalId, url, html_url: `${htmlUrl(ctx)}/runs/${run.id}`,
    details_url: run.detailsUrl ?? 'https://example.com', status: run.status, conclusion: run.conclusion, started_at: run.startedAt, completed_at: run.completedAt,
    output: { ...run.output, annotations_count: run.annotations.length, annotations_url: `${url}/annotations` },
    name: run.name, check_suite: { id: suiteId(run.headSha) }, app: run.app ? otherAppJson(run.app) : appJson(ctx), pull_requests: pulls,
  };
}

function annotationJson(ctx: GitHubServerContext, run: CheckRun, a: CheckRunAnnotation): Json {
  return {
    path: a.path, blob_href: `${htmlUrl(ctx)}/blob/${run.headSha}/${a.path}`, start_line: a.startLine, end_line: a.endLine, start_column: a.startColumn,
    end_column: a.endColumn, annotation_level: a.level, title: a.title, message: a.message, raw_details: a.rawDetails,
  };
}

export function findRun(ctx: GitHubServerContext, id: string | undefined): CheckRun {
  const run = ctx.state.checkRuns.find((r) => r.id === Number(id));
  if (!run) throw notFound();
  return run;
}

route('POST', `${repoPath}/check-runs`, 'checks.create', async (ctx, [o, r], _q, body, caller) => {
  repoMatches(ctx, o, r);
  mayWrite(ctx, caller, 'create');
  if (typeof body.name !== 'string' || body.name === '') throw invalidRequest('"name" wasn\'t supplied.');
  if (typeof body.head_sha !== 'string') throw invalidRequest('"head_sha" wasn\'t supplied.');
  if ((await ctx.state.git.objectType(body.head_sha)) !== 'commit') throw new GitHubError(422, `No commit found for SHA: ${body.head_sha}`);
  const run: CheckRun = {
    id: ctx.state.nextId++, headSha: body.head_sha, name: body.name, status: 'queued', conclusion: null, startedAt: now(), completedAt: null,
    externalId: null, detailsUrl: null, output: { title: null, summary: null, text: null }, annotations: [], creator: caller.login,
  };
  applyFields(run, body);
  ctx.state.checkRuns.push(run);
  return { status: 201, body: checkRunJson(ctx, run) };
});

route('PATCH', `${repoPath}/check-runs/{id}`, 'checks.update', async (ctx, [o, r, id], _q, body, caller) => {
  repoMatches(ctx, o, r);
  mayWrite(ctx, caller, 'update');
  const run = findRun(ctx, id);
  // Another App's run is not this installation's to change.
  if (run.creator !== caller.login) throw new GitHubError(403, 'Resource not accessible by integration', undefined, {}, 'https://docs.github.com/rest/checks/runs#update-a-check-run');
  const copy: CheckRun = { ...run, output: { ...run.output }, annotations: [...run.annotations] };
  applyFields(copy, body);
  Object.assign(run, copy);
  return { body: checkRunJson(ctx, run) };
});

route('GET', `${repoPath}/check-runs/{id}`, 'checks.get', async (ctx, [o, r, id]) => {
  repoMatches(ctx, o, r);
  return { body: checkRunJson(ctx, findRun(ctx, id)) };
});

route('GET', `${repoPath}/check-runs/{id}/annotations`, 'checks.listAnnotations', async (ctx, [o, r, id], query) => {
  repoMatches(ctx, o, r);
  const run = findRun(ctx, id);
  return paginate(run.annotations.map((a) => annotationJson(ctx, run, a)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/check-runs/${run.id}/annotations`, ctx);
});

route('GET', `${repoPath}/commits/{ref}/check-runs`, 'checks.listForRef', async (ctx, [o, r, ref = ''], query, _body, caller) => {
  repoMatches(ctx, o, r);
  // An installation reads check runs of a private repository only with the checks permission.
  if (caller.credential === 'installation' && ctx.state.installationPermissions.checks === undefined) {
    throw new GitHubError(403, 'Resource not accessible by integration', undefined, { 'x-accepted-github-permissions': 'checks=read' }, 'https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference');
  }
  const appId = query.get('app_id');
  const sha = await ctx.state.git.resolve(ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
  const name = query.get('check_name');
  const status = query.get('status');
  let runs = ctx.state.checkRuns.filter((run) => run.headSha === sha && (name === null || run.name === name) && (status === null || run.status === status)
    && (appId === null || Number(appId) === (run.app?.id ?? ctx.state.appId)))
    .sort((a, b) => b.id - a.id);
  // `latest` (the default): the most recent run of each name, as the pull request page shows them.
  if (query.get('filter') !== 'all') runs = runs.filter((run, index) => runs.findIndex((other) => other.name === run.name) === index);
  const page = paginate(runs.map((run) => checkRunJson(ctx, run)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/commits/${ref}/check-runs`, ctx);
  return { body: { total_count: runs.length, check_runs: page.body }, headers: page.headers };
});
