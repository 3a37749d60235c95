// Comments on a pull request's issue: list, create, edit, delete (someone else's only with write access).
import { GitHubError, notFound, validationFailed } from '../errors.ts';
import { paginate } from '../paging.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { commentJson, now, repoMatches } from '../shapes.ts';
import type { Identity, IssueComment } from '../state.ts';

export const issueCommentRoutes: Route[] = [];
const route = routeInto(issueCommentRoutes);

route('GET', `${repoPath}/issues/{number}/comments`, 'issues.listComments', async (ctx, [o, r, n], query) => {
  repoMatches(ctx, o, r);
  if (!ctx.state.pulls.some((p) => p.number === Number(n))) throw notFound();
  const comments = ctx.state.comments.filter((c) => c.issue === Number(n)).sort((a, b) => a.id - b.id);
  return paginate(comments.map((c) => commentJson(ctx, c)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/issues/${n}/comments`, ctx);
});

route('POST', `${repoPath}/issues/{number}/comments`, 'issues.createComment', async (ctx, [o, r, n], _q, body, { login: user, role }) => {
  repoMatches(ctx, o, r);
  const pull = ctx.state.pulls.find((p) => p.number === Number(n));
  if (!pull) throw notFound();
  if (pull.locked && role !== 'maintain' && role !== 'admin') {
    throw new GitHubError(403, 'Unable to create comment because issue is locked.', undefined, {}, 'https://docs.github.com/articles/locking-conversations/');
  }
  if (typeof body.body !== 'string' || body.body === '') throw validationFailed([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }]);
  if (body.body.length > 65536) throw validationFailed([{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }]);
  const created = now();
  const comment: IssueComment = { id: ctx.state.nextId++, issue: Number(n), body: body.body, user, createdAt: created, updatedAt: created };
  ctx.state.comments.push(comment);
  return { status: 201, body: commentJson(ctx, comment) };
});

/**
 * Everyone may edit and delete their own comments; someone else's needs write access to the repository (GitHub's
 * repository roles: read and triage may not). A credential without it is refused as GitHub refuses a missing
 * permission.
 */
function mayChange(comment: IssueComment, caller: Identity, operation: 'update' | 'delete'): void {
  if (comment.user === caller.login || ['write', 'maintain', 'admin'].includes(caller.role)) return;
  const by = caller.credential === 'token' ? 'personal access token' : 'integration';
  throw new GitHubError(403, `Resource not accessible by ${by}`, undefined, { 'x-accepted-github-permissions': 'issues=write; pull_requests=write' },
    `https://docs.github.com/rest/issues/comments#${operation}-an-issue-comment`);
}

route('PATCH', `${repoPath}/issues/comments/{id}`, 'issues.updateComment', async (ctx, [o, r, id], _q, body, caller) => {
  repoMatches(ctx, o, r);
  const comment = ctx.state.comments.find((c) => c.id === Number(id));
  if (!comment) throw notFound();
  mayChange(comment, caller, 'update');
  if (typeof body.body !== 'string' || body.body === '') throw validationFailed([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }]);
  if (body.body.length > 65536) throw validationFailed([{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }]);
  comment.body = body.body;
  comment.updatedAt = now();
  return { body: commentJson(ctx, comment) };
});

route('DELETE', `${repoPath}/issues/comments/{id}`, 'issues.deleteComment', async (ctx, [o, r, id], _q, _body, caller) => {
  repoMatches(ctx, o, r);
  const index = ctx.state.comments.findIndex((c) => c.id === Number(id));
  const comment = ctx.state.comments[index];
  if (!comment) throw notFound();
  mayChange(comment, caller, 'delete');
  ctx.state.comments.splice(index, 1);
  return { status: 204, body: undefined };
});
