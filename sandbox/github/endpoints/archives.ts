// Repository archives as GitHub serves them: GET .../tarball/{ref} answers 302 (text/html, as GitHub's) to codeload, which answers the commit's
// tree as a gzipped tar whose paths sit under `{owner}-{repo}-{short sha}/` (what `git archive` writes, as GitHub's
// does). The sandbox serves the codeload side itself, under /_codeload, on the same origin (so the client's
// Authorization header survives the redirect; github.com puts a short-lived token in the codeload URL instead).
import { notFound } from '../errors.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches } from '../shapes.ts';

export const archiveRoutes: Route[] = [];
const route = routeInto(archiveRoutes);

route('GET', `${repoPath}/tarball/{+ref}`, 'repos.downloadTarballArchive', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  if (!(await ctx.state.git.resolve(ref))) throw notFound();
  const location = `${ctx.baseUrl()}/_codeload/${ctx.state.owner}/${ctx.state.repo}/legacy.tar.gz/${ref.split('/').map(encodeURIComponent).join('/')}`;
  return { status: 302, body: undefined, headers: { Location: location, 'Content-Type': 'text/html;charset=utf-8', 'Content-Length': '0' } };
});

route('GET', '/_codeload/{owner}/{repo}/legacy.tar.gz/{+ref}', 'codeload.tarball', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const commit = await ctx.state.git.resolve(ref);
  if (!commit) throw notFound();
  const name = `${ctx.state.owner}-${ctx.state.repo}-${commit.slice(0, 7)}`;
  return {
    body: undefined, raw: await ctx.state.git.archive(commit, `${name}/`),
    rawContentType: 'application/x-gzip', headers: { 'Content-Disposition': `attachment; filename=${name}.tar.gz` },
  };
});
