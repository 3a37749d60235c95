// Before merge: for each open PR against the target branch that touches the target's manifests or a file its size
// sources map, plan the PR head against the live cluster (reads and dry runs only) and report it as a commit status
// and an upserted plan comment.
import { matchesManifestGlobs } from '../domain/manifests.ts';
import { readTargetDesired } from '../engine/desired-input.ts';
import type { GitHubSource } from '../adapters/github/github-source.ts';
import type { FeedbackHost, WriteOutcome } from '../adapters/github/feedback-host.ts';
import type { ClusterPort } from '../engine/ports.ts';
import { planWithDryRuns, reportFromPlan, type PassTarget } from '../engine/run-pass.ts';
import { renderPlanComment, type RepoLinks } from './render-plan-comment.ts';

export interface PullRequestCheck {
  number: number;
  headSha: string;
  state: 'success' | 'failure';
  description: string;
  markdown: string;
  status: WriteOutcome;
  comment: WriteOutcome;
}

export function validateContext(target: string): string {
  return `sts-volume-gitops/validate (${target})`;
}

export async function validatePullRequests(input: {
  host: FeedbackHost; source: GitHubSource; target: PassTarget; cluster: ClusterPort; branch: string; links: RepoLinks;
}): Promise<PullRequestCheck[]> {
  const { host, source, target, cluster, branch, links } = input;
  const checks: PullRequestCheck[] = [];
  for (const pr of await host.openPullRequests(branch)) {
    const mappedFiles = new Set((target.sizeSources ?? []).map((s) => s.file));
    const touched = new Set((await host.changedFiles(pr.number)).filter((f) => matchesManifestGlobs(f, target.globs) || mappedFiles.has(f)));
    if (touched.size === 0) continue;
    const head = await source.readCommit(pr.headSha);
    const desired = readTargetDesired(head.files, target);
    const { plans } = await planWithDryRuns({ cluster, target }, {
      statefulSets: desired.statefulSets.filter((s) => touched.has(s.location.path)),
      sizeValues: desired.sizeValues.filter((v) => touched.has(v.source.file)),
    });
    const reports = plans.map((plan) => reportFromPlan(plan, pr.headSha));
    const summary = renderPlanComment({
      target: target.name, headSha: pr.headSha, links, statefulSets: reports, errors: desired.errors.filter((e) => touched.has(e.path)),
    });
    const comment = await host.ensureComment(pr.number, `plan:${target.name}`, summary.markdown);
    const status = await host.ensureCommitStatus(pr.headSha, {
      context: validateContext(target.name), state: summary.state, description: summary.description, targetUrl: comment.url,
    });
    checks.push({ number: pr.number, headSha: pr.headSha, state: summary.state, description: summary.description, markdown: summary.markdown, status, comment: comment.outcome });
  }
  return checks;
}
