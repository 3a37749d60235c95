// Forks of the sandbox repository. As on GitHub, a fork shares the repository network's object store, so its commits
// are readable through the base repository by SHA; its branches are its own, kept under `refs/forks/<owner>/heads/`
// (never visible as the base repository's refs).
import type { Fork, GitHubState, PullRequest } from './state.ts';

export function forkBranchRef(owner: string, branch: string): string {
  return `refs/forks/${owner}/heads/${branch}`;
}

/** Whether a ref is a fork's branch (kept out of the base repository's ref listings). */
export function isForkRef(ref: string): boolean {
  return ref.startsWith('refs/forks/');
}

/** The ref a pull request's head branch lives at: in the base repository, or in the fork it comes from. */
export function headRefOf(state: GitHubState, pr: Pick<PullRequest, 'head' | 'headOwner'>): string {
  return pr.headOwner.toLowerCase() === state.owner.toLowerCase() ? `refs/heads/${pr.head}` : forkBranchRef(pr.headOwner, pr.head);
}

/** `owner:branch` (GitHub's form for a head in another repository of the network) or a bare branch name. */
export function parseHead(state: GitHubState, head: string): { owner: string; branch: string } {
  const colon = head.indexOf(':');
  return colon < 0 ? { owner: state.owner, branch: head } : { owner: head.slice(0, colon), branch: head.slice(colon + 1) };
}

export function findFork(state: GitHubState, owner: string | undefined, repo: string | undefined): Fork | undefined {
  if (repo?.toLowerCase() !== state.repo.toLowerCase()) return undefined;
  return state.forks.find((f) => f.owner.toLowerCase() === owner?.toLowerCase());
}

/** Forks the repository for `owner` with all its branches (GitHub's default), or returns the fork they already have. */
export async function createFork(state: GitHubState, owner: string, createdAt: string): Promise<Fork> {
  const existing = findFork(state, owner, state.repo);
  if (existing) return existing;
  for (const { ref, sha } of await state.git.refs('refs/heads/')) await state.git.updateRef(forkBranchRef(owner, ref.slice('refs/heads/'.length)), sha);
  const fork = { owner, createdAt };
  state.forks.push(fork);
  return fork;
}
