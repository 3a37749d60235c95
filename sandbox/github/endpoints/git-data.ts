// The git data API: refs, trees, blobs and commits as real git objects.
import { notFound, validationFailed } from '../errors.ts';
import { isForkRef } from '../forks.ts';
import { repoPath, routeInto, str, type Route } from '../routing.ts';
import { paginate } from '../paging.ts';
import { htmlUrl, repoMatches, repoUrl } from '../shapes.ts';
import type { GitHubServerContext, Json } from '../state.ts';
import { branchMoved } from '../events.ts';

export const gitDataRoutes: Route[] = [];
const route = routeInto(gitDataRoutes);

async function refsFor(ctx: GitHubServerContext, ref: string, exact: boolean): Promise<Json[]> {
  const all = await ctx.state.git.refs(`refs/${ref}`);
  return all.filter((r) => !isForkRef(r.ref) && (!exact || r.ref === `refs/${ref}`)).map((r) => ({
    ref: r.ref, node_id: `REF_${r.ref}`, url: `${repoUrl(ctx)}/git/${r.ref}`, object: { type: 'commit', sha: r.sha, url: `${repoUrl(ctx)}/git/commits/${r.sha}` },
  }));
}

route('GET', `${repoPath}/git/ref/{+ref}`, 'git.getRef', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const [found] = await refsFor(ctx, ref, true);
  if (!found) throw notFound();
  return { body: found };
});

route('GET', `${repoPath}/git/matching-refs/{+ref}`, 'git.listMatchingRefs', async (ctx, [o, r, ref = ''], query) => {
  repoMatches(ctx, o, r);
  return paginate(await refsFor(ctx, ref, false), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/git/matching-refs/${ref}`, ctx);
});

/** A branch of the repository (not a tag, nor a fork's branch kept beside it): its pushes are delivered. */
function branchOf(ref: string): string | undefined {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

route('POST', `${repoPath}/git/refs`, 'git.createRef', async (ctx, [o, r], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  const ref = str(body.ref, '');
  const sha = str(body.sha, '');
  if (!ref.startsWith('refs/') || ref.split('/').length < 3) throw validationFailed([], 'Reference name must start with \'refs/\' and have at least two slashes.');
  if ((await ctx.state.git.objectType(sha)) !== 'commit') throw validationFailed([], 'Object does not exist');
  if ((await ctx.state.git.refs(ref)).some((x) => x.ref === ref)) throw validationFailed([], 'Reference already exists');
  await ctx.state.git.updateRef(ref, sha);
  const branch = branchOf(ref);
  if (branch !== undefined) void branchMoved(ctx, branch, undefined, sha, user);
  const [created] = await refsFor(ctx, ref.slice(5), true);
  return { status: 201, body: created };
});

route('PATCH', `${repoPath}/git/refs/{+ref}`, 'git.updateRef', async (ctx, [o, r, ref = ''], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  const full = `refs/${ref}`;
  const current = (await ctx.state.git.refs(full)).find((x) => x.ref === full);
  if (!current) throw validationFailed([], 'Reference does not exist');
  const sha = str(body.sha, '');
  if ((await ctx.state.git.objectType(sha)) !== 'commit') throw validationFailed([], 'Object does not exist');
  if (body.force !== true && !(await ctx.state.git.isAncestor(current.sha, sha))) throw validationFailed([], 'Update is not a fast forward');
  await ctx.state.git.updateRef(full, sha);
  const branch = branchOf(full);
  if (branch !== undefined && sha !== current.sha) void branchMoved(ctx, branch, current.sha, sha, user);
  const [updated] = await refsFor(ctx, ref, true);
  return { body: updated };
});

route('DELETE', `${repoPath}/git/refs/{+ref}`, 'git.deleteRef', async (ctx, [o, r, ref = ''], _q, _body, { login: user }) => {
  repoMatches(ctx, o, r);
  const full = `refs/${ref}`;
  const current = (await ctx.state.git.refs(full)).find((x) => x.ref === full);
  if (!current) throw validationFailed([], 'Reference does not exist');
  await ctx.state.git.deleteRef(full);
  const branch = branchOf(full);
  if (branch !== undefined) void branchMoved(ctx, branch, current.sha, undefined, user);
  return { status: 204, body: undefined };
});

route('GET', `${repoPath}/git/trees/{sha}`, 'git.getTree', async (ctx, [o, r, sha = ''], query) => {
  repoMatches(ctx, o, r);
  const tree = await ctx.state.git.treeOf(sha);
  if (!tree) throw notFound();
  const recursive = query.has('recursive') && query.get('recursive') !== '0' && query.get('recursive') !== 'false';
  const entries = await ctx.state.git.listTree(tree, recursive);
  const limit = ctx.state.treeEntryLimit;
  return {
    body: {
      sha: tree, url: `${repoUrl(ctx)}/git/trees/${tree}`, truncated: entries.length > limit,
      tree: entries.slice(0, limit).map((e) => ({ path: e.path, mode: e.mode, type: e.type, sha: e.sha, ...(e.size !== undefined ? { size: e.size } : {}), url: `${repoUrl(ctx)}/git/${e.type}s/${e.sha}` })),
    },
  };
});

route('POST', `${repoPath}/git/trees`, 'git.createTree', async (ctx, [o, r], _q, body) => {
  repoMatches(ctx, o, r);
  const changes = new Map<string, { mode: string; sha: string } | null>();
  for (const entry of (body.tree ?? []) as Json[]) {
    const path = str(entry.path, '');
    if (entry.sha === null) {
      changes.set(path, null);
    } else if (typeof entry.content === 'string') {
      changes.set(path, { mode: str(entry.mode, '100644'), sha: await ctx.state.git.writeBlob(Buffer.from(entry.content)) });
    } else {
      const sha = str(entry.sha, '');
      if ((await ctx.state.git.objectType(sha)) !== 'blob') throw validationFailed([], `tree.sha ${sha} is not a valid blob`);
      changes.set(path, { mode: str(entry.mode, '100644'), sha });
    }
  }
  const baseTree = typeof body.base_tree === 'string' ? body.base_tree : undefined;
  if (baseTree && !(await ctx.state.git.treeOf(baseTree))) throw validationFailed([], 'base_tree is not a valid tree oid');
  const sha = await ctx.state.git.buildTree(baseTree, changes);
  const entries = await ctx.state.git.listTree(sha, false);
  return { status: 201, body: { sha, url: `${repoUrl(ctx)}/git/trees/${sha}`, truncated: false, tree: entries.map((e) => ({ path: e.path, mode: e.mode, type: e.type, sha: e.sha, url: `${repoUrl(ctx)}/git/${e.type}s/${e.sha}` })) } };
});

route('GET', `${repoPath}/git/blobs/{sha}`, 'git.getBlob', async (ctx, [o, r, sha = '']) => {
  repoMatches(ctx, o, r);
  const content = await ctx.state.git.readBlob(sha);
  if (!content) throw notFound();
  return { body: { sha, node_id: `B_${sha}`, size: content.length, url: `${repoUrl(ctx)}/git/blobs/${sha}`, content: content.toString('base64'), encoding: 'base64' } };
});

route('POST', `${repoPath}/git/blobs`, 'git.createBlob', async (ctx, [o, r], _q, body) => {
  repoMatches(ctx, o, r);
  if (typeof body.content !== 'string') throw validationFailed([{ resource: 'Blob', field: 'content', code: 'missing_field' }]);
  const sha = await ctx.state.git.writeBlob(Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8'));
  return { status: 201, body: { sha, url: `${repoUrl(ctx)}/git/blobs/${sha}` } };
});

route('GET', `${repoPath}/git/commits/{sha}`, 'git.getCommit', async (ctx, [o, r, sha = '']) => {
  repoMatches(ctx, o, r);
  const info = await ctx.state.git.commitInfo(sha);
  if (!info) throw notFound();
  const person = { name: info.authorName, email: info.authorEmail, date: new Date(info.date).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  return { body: { sha: info.sha, node_id: `C_${info.sha}`, url: `${repoUrl(ctx)}/git/commits/${info.sha}`, html_url: `${htmlUrl(ctx)}/commit/${info.sha}`, author: person, committer: person, message: info.message, tree: { sha: info.tree, url: `${repoUrl(ctx)}/git/trees/${info.tree}` }, parents: info.parents.map((p) => ({ sha: p, url: `${repoUrl(ctx)}/git/commits/${p}`, html_url: `${htmlUrl(ctx)}/commit/${p}` })), verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null } } };
});

route('POST', `${repoPath}/git/commits`, 'git.createCommit', async (ctx, [o, r], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  const tree = str(body.tree, '');
  if ((await ctx.state.git.objectType(tree)) !== 'tree') throw validationFailed([], 'Tree SHA does not exist');
  const parents = ((body.parents ?? []) as string[]);
  for (const p of parents) if ((await ctx.state.git.objectType(p)) !== 'commit') throw validationFailed([], 'Parent SHA does not exist or is not a commit object');
  const author = (body.author ?? {}) as { name?: string; email?: string; date?: string };
  const sha = await ctx.state.git.commitTree(tree, parents, str(body.message, ''), { name: author.name ?? user, email: author.email ?? `${user}@users.noreply.github.com`, ...(author.date ? { date: author.date } : {}) });
  const info = await ctx.state.git.commitInfo(sha);
  const person = { name: info?.authorName, email: info?.authorEmail, date: info?.date };
  return { status: 201, body: { sha, node_id: `C_${sha}`, url: `${repoUrl(ctx)}/git/commits/${sha}`, html_url: `${htmlUrl(ctx)}/commit/${sha}`, author: person, committer: person, message: info?.message, tree: { sha: tree, url: `${repoUrl(ctx)}/git/trees/${tree}` }, parents: parents.map((p) => ({ sha: p, url: `${repoUrl(ctx)}/git/commits/${p}`, html_url: `${htmlUrl(ctx)}/commit/${p}` })), verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null } } };
});
