// The contents API: a file as JSON (base64, up to 1 MB) or raw bytes, a directory's listing, and a commit that writes
// one file.
import { GitHubError, notFound } from '../errors.ts';
import { repoPath, routeInto, str, type Route } from '../routing.ts';
import { htmlUrl, now, repoMatches, repoUrl } from '../shapes.ts';
import type { TreeEntry } from '../git-repo.ts';
import type { GitHubServerContext, Json } from '../state.ts';
import { branchMoved } from '../events.ts';

/** GitHub serves a file's bytes in the JSON contents answer up to 1 MB. */
export const maxJsonContentBytes = 1024 * 1024;

export const contentsRoutes: Route[] = [];
const route = routeInto(contentsRoutes);

// The repository's root: `/contents` or `/contents/` (an empty path) lists it.
route('GET', `${repoPath}/contents/?`, 'repos.getContent', async (ctx, [o, r], query) => {
  repoMatches(ctx, o, r);
  const ref = query.get('ref') ?? ctx.state.defaultBranch;
  const commit = await ctx.state.git.resolve(ref);
  if (!commit) throw new GitHubError(404, `No commit found for the ref ${ref}`);
  return { body: directoryListing(ctx, await ctx.state.git.listTree(commit, true), '', ref) };
});

route('GET', `${repoPath}/contents/{+path}`, 'repos.getContent', async (ctx, [o, r, path = ''], query, _body, _user, accept) => {
  repoMatches(ctx, o, r);
  const ref = query.get('ref') ?? ctx.state.defaultBranch;
  const commit = await ctx.state.git.resolve(ref);
  if (!commit) throw new GitHubError(404, `No commit found for the ref ${ref}`);
  const tree = await ctx.state.git.listTree(commit, true);
  const entry = tree.find((e) => e.path === path);
  if (!entry) throw notFound();
  if (entry.type === 'tree') return { body: directoryListing(ctx, tree, path, ref) };
  const content = (await ctx.state.git.readBlob(entry.sha)) ?? Buffer.alloc(0);
  // The raw media type answers the file's bytes instead of the JSON description.
  // It answers in the media type asked for (`application/vnd.github.v3.raw` from Octokit's `format: 'raw'`).
  const rawType = /application\/vnd\.github(\.v3)?\.raw/.exec(accept)?.[0];
  if (rawType) return { body: undefined, raw: content, rawContentType: `${rawType}; charset=utf-8` };
  const name = path.split('/').pop() ?? path;
  // Over 1 MB the JSON answer describes the file without its bytes (GitHub: `content: ""`, `encoding: "none"`);
  // only the raw media type (or the git blobs API) returns them.
  const tooLarge = content.length > maxJsonContentBytes;
  return { body: { type: 'file', encoding: tooLarge ? 'none' : 'base64', size: content.length, name, path, content: tooLarge ? '' : content.toString('base64'), sha: entry.sha, url: `${repoUrl(ctx)}/contents/${path}?ref=${ref}`, git_url: `${repoUrl(ctx)}/git/blobs/${entry.sha}`, html_url: `${htmlUrl(ctx)}/blob/${ref}/${path}`, download_url: `https://raw.githubusercontent.com/${ctx.state.owner}/${ctx.state.repo}/${ref}/${path}`, _links: { self: `${repoUrl(ctx)}/contents/${path}?ref=${ref}`, git: `${repoUrl(ctx)}/git/blobs/${entry.sha}`, html: `${htmlUrl(ctx)}/blob/${ref}/${path}` } } };
});

/** A directory answers 200 with its entries (files and folders directly in it), as GitHub's contents API does. */
function directoryListing(ctx: GitHubServerContext, tree: readonly TreeEntry[], dir: string, ref: string): Json[] {
  const prefix = dir === '' ? '' : `${dir}/`;
  return tree.filter((e) => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/')).map((e) => {
    const file = e.type === 'blob';
    const self = `${repoUrl(ctx)}/contents/${e.path}?ref=${ref}`;
    const git = `${repoUrl(ctx)}/git/${file ? 'blobs' : 'trees'}/${e.sha}`;
    const html = `${htmlUrl(ctx)}/${file ? 'blob' : 'tree'}/${ref}/${e.path}`;
    return {
      type: file ? 'file' : 'dir', size: file ? e.size ?? 0 : 0, name: e.path.split('/').pop() ?? e.path, path: e.path, sha: e.sha, url: self, git_url: git,
      html_url: html, download_url: file ? `https://raw.githubusercontent.com/${ctx.state.owner}/${ctx.state.repo}/${ref}/${e.path}` : null, _links: { self, git, html },
    };
  });
}

route('PUT', `${repoPath}/contents/{+path}`, 'repos.createOrUpdateFileContents', async (ctx, [o, r, path = ''], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  const branch = typeof body.branch === 'string' ? body.branch : ctx.state.defaultBranch;
  const head = await ctx.state.git.resolve(`refs/heads/${branch}`);
  if (!head) throw new GitHubError(404, `Branch ${branch} not found`);
  const existing = (await ctx.state.git.listTree(head, true)).find((e) => e.path === path);
  if (existing && body.sha !== existing.sha) throw new GitHubError(409, `${path} does not match ${str(body.sha, '')}`);
  if (!existing && body.sha !== undefined) throw new GitHubError(409, `${path} does not match ${str(body.sha, '')}`);
  const blob = await ctx.state.git.writeBlob(Buffer.from(str(body.content, ''), 'base64'));
  const tree = await ctx.state.git.buildTree(head, new Map([[path, { mode: '100644', sha: blob }]]));
  const sha = await ctx.state.git.commitTree(tree, [head], str(body.message, `Update ${path}`), { name: user, email: `${user}@users.noreply.github.com` });
  await ctx.state.git.updateRef(`refs/heads/${branch}`, sha, head);
  void branchMoved(ctx, branch, head, sha, user);
  const info = await ctx.state.git.commitInfo(sha);
  const person = { name: info?.authorName ?? user, email: info?.authorEmail ?? '', date: info ? new Date(info.date).toISOString().replace(/\.\d{3}Z$/, 'Z') : now() };
  const name = path.split('/').pop() ?? path;
  return {
    status: existing ? 200 : 201,
    body: {
      content: {
        name, path, sha: blob, size: Buffer.from(str(body.content, ''), 'base64').length, type: 'file',
        url: `${repoUrl(ctx)}/contents/${path}?ref=${branch}`, html_url: `${htmlUrl(ctx)}/blob/${branch}/${path}`, git_url: `${repoUrl(ctx)}/git/blobs/${blob}`,
        download_url: `https://raw.githubusercontent.com/${ctx.state.owner}/${ctx.state.repo}/${branch}/${path}`,
        _links: { self: `${repoUrl(ctx)}/contents/${path}?ref=${branch}`, git: `${repoUrl(ctx)}/git/blobs/${blob}`, html: `${htmlUrl(ctx)}/blob/${branch}/${path}` },
      },
      commit: {
        sha, node_id: `C_${sha}`, url: `${repoUrl(ctx)}/git/commits/${sha}`, html_url: `${htmlUrl(ctx)}/commit/${sha}`, author: person, committer: person,
        message: info?.message ?? '', tree: { sha: tree, url: `${repoUrl(ctx)}/git/trees/${tree}` },
        parents: [{ sha: head, url: `${repoUrl(ctx)}/git/commits/${head}`, html_url: `${htmlUrl(ctx)}/commit/${head}` }],
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
      },
    },
  };
});
