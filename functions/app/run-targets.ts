// One pass per configured target, shared by the Lambda handler, the CLI and the demo. A target that fails (bad
// credentials, unreachable cluster) is reported and the next target still runs.
import type { Config } from '../domain/config.ts';
import { runPass, type PassMode, type PassReport } from '../engine/run-pass.ts';
import type { RecreationTiming } from '../engine/records/recreate-statefulset.ts';
import { openTarget, type GitHubTiming, type OpenOptions } from './open-target.ts';
import { observeGitHubRequests } from '../adapters/github/octokit.ts';
import { isRateLimited, type ReviewHost } from '../engine/ports.ts';
import { isPvcPatch } from '../adapters/kube/instrumented-kube-config.ts';
import { hasTimeFor } from './deadline.ts';
import { selectTargets } from './select-targets.ts';
import { sizeProposalStep } from '../usage/size-proposals.ts';
import type { MergeGroupRef } from './target-messages.ts';

/** Time one pull request's check or one StatefulSet's progress report may need (a plan with dry runs, two writes). */
const itemMs = 10_000;
import { publishFeedback, type FeedbackResult } from '../feedback/publish-feedback.ts';
import type { WriteBackLinks } from '../feedback/validate-pull-requests.ts';
import { foreignVerdictLine } from '../feedback/foreign-verdict-words.ts';
import { validateContext } from '../feedback/check-names.ts';
import { describeProposal, type ProposalKindName } from '../proposals/lifecycle/identity.ts';
import { manageRecoveryPullRequests, openRecoveryPullRequests, type RecoveryResult } from '../proposals/recovery/manage-recovery-pull-requests.ts';
import { manageGrowthPullRequests } from '../proposals/growth/manage-growth-pull-requests.ts';
import { listedProposals, type ProposalsResult } from '../proposals/lifecycle/manage-proposals.ts';
import { openProposals, type OpenProposal } from '../proposals/lifecycle/pull-requests.ts';
import { growthKind } from '../proposals/growth/growth-kind.ts';
import { writeBackKind } from '../proposals/write-back/write-back-kind.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import { manageWriteBackPullRequests } from '../proposals/write-back/manage-write-back-pull-requests.ts';
import { writeBackHolds, type WriteBackBranchPulls } from '../proposals/write-back/write-back-holds.ts';

export interface TargetRun {
  target: string;
  report: PassReport | undefined;
  /** What was written to GitHub (GitHub sources only). */
  feedback: FeedbackResult | undefined;
  recovery: RecoveryResult | undefined;
  /** Growth pull requests (applying passes of targets with `growth`): functions/proposals/growth/. */
  growth?: ProposalsResult;
  /** Write-back pull requests (Git set to a size grown outside it): managed by an applying pass, listed by a plan. */
  writeBack?: ProposalsResult | undefined;
  /** Set when the pass could not run or stopped on an unexpected error. */
  error: string | undefined;
  /** Steps left for the next pass because the invocation was running out of time. */
  deferred: string[];
  durationMs: number;
  /** Requests sent by the clients during this run, retries included; `pvcPatches` are stored storage patches. */
  apiCalls: ApiCalls;
}

/** Every proposal outcome of the run, whichever kind's step gave it (the CLI's lines and the Lambda's metrics read them). */
export function proposalOutcomes(run: Pick<TargetRun, 'recovery' | 'growth' | 'writeBack'>): ProposalOutcome[] {
  return [...(run.recovery?.outcomes ?? []), ...(run.growth?.outcomes ?? []), ...(run.writeBack?.outcomes ?? [])];
}

export interface ApiCalls {
  github: number;
  kubernetes: number;
  pvcPatches: number;
}

/** `validate`: a read-only pass whose only GitHub writes are pull request checks (the webhook's pull_request events). */
export type RunMode = PassMode | 'validate';

export interface RunTargetsOptions extends OpenOptions {
  mode: RunMode;
  targetName?: string;
  holderIdentity: string;
  onEvent?: (target: string, line: string) => void;
  /** How long a pass waits: for a recreated StatefulSet's Pods, and between GitHub writes. */
  timing?: RecreationTiming & GitHubTiming;
  /** Called as each target's run ends, before the next target starts (logs and metrics per pass). */
  onRunFinished?: (run: TargetRun) => void;
  /** The clock (tests: a sandbox's): durations, and the pass's own (a change's start, record seals, waits for a node). */
  now?: () => number;
  /** `validate` of a merge queue's commit (the `merge_group` webhook) rather than of the open pull requests. */
  mergeGroup?: MergeGroupRef;
  /** `validate` of this pull request alone (its own webhook event). */
  pullRequest?: number;
}

export const defaultTiming: RecreationTiming = {
  maxWaitMs: 10_000,
  pollIntervalMs: 500,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export async function runTargets(config: Config, options: RunTargetsOptions): Promise<TargetRun[]> {
  const runs: TargetRun[] = [];
  for (const targetConfig of selectTargets(config, options.targetName)) {
    const run = await runTarget(targetConfig, options);
    runs.push(run);
    options.onRunFinished?.(run);
  }
  return runs;
}

async function runTarget(targetConfig: Config['targets'][number], options: RunTargetsOptions): Promise<TargetRun> {
  const now = options.now ?? Date.now;
  const started = now();
  const apiCalls: ApiCalls = { github: 0, kubernetes: 0, pvcPatches: 0 };
  const deferred: string[] = [];
  const githubFailures: string[] = [];
  const finish = (run: Omit<TargetRun, 'durationMs' | 'apiCalls' | 'deferred'>): TargetRun => ({ ...run, deferred, durationMs: now() - started, apiCalls });
  const defer = (step: string, reason: string): void => {
    deferred.push(`${step}: ${reason}`);
    options.onEvent?.(targetConfig.name, `${step}: left for the next pass (${reason})`);
  };
  // Recovery and feedback only start with enough time left to finish, and a GitHub rate limit not waited out (see
  // createGitHubClient) defers them rather than failing the target: the cluster side of the pass is done.
  const githubStep = async <T>(step: string, work: () => Promise<T>): Promise<T | undefined> => {
    if (!hasTimeFor(options.remainingMs)) {
      defer(step, `${Math.round((options.remainingMs?.() ?? 0) / 1000)}s of this invocation left`);
      return undefined;
    }
    try {
      return await work();
    } catch (error) {
      if (isRateLimited(error)) {
        defer(step, error.message);
        return undefined;
      }
      // Any other GitHub failure fails the target loudly, but keeps the finished cluster report and lets the next
      // GitHub step run (a recovery that failed does not cost the pull requests their checks).
      const message = error instanceof Error ? error.message : String(error);
      githubFailures.push(`${step}: ${message}`);
      options.onEvent?.(targetConfig.name, `${step} failed: ${message}`);
      return undefined;
    }
  };
  /** What a proposals step left, wrote and failed, in the run's events. */
  const logProposals = (result: ProposalsResult | undefined): void => {
    for (const item of result?.deferred ?? []) defer(item, 'the invocation is running out of time');
    for (const write of result?.writes ?? []) options.onEvent?.(targetConfig.name, `github: ${write}`);
    for (const failed of (result?.outcomes ?? []).filter((o) => o.action === 'failed')) options.onEvent?.(targetConfig.name, `github: ${describeProposal(failed.kind, failed.key)} failed: ${failed.reason ?? ''}`);
  };
  try {
    const opened = await openTarget(targetConfig, {
      ...options,
      needsRecordKey: options.mode === 'apply',
      onWarning: (message) => options.onEvent?.(targetConfig.name, `warning: ${message}`),
      onKubernetesRequest: (method, url) => {
        apiCalls.kubernetes += 1;
        if (isPvcPatch(method, url)) apiCalls.pvcPatches += 1;
      },
    });
    if (opened.github) observeGitHubRequests(opened.github.client, () => { apiCalls.github += 1; });
    // A validate of one pull request or one merge queue commit (its own webhook event) plans that commit alone: the
    // branch head's plan would only delay its check.
    const scoped = options.mode === 'validate' && (options.pullRequest !== undefined || options.mergeGroup !== undefined);
    // A validate run answers pull requests: usage and the sizes it proposes are for plans and applying passes.
    const proposeSizes = options.mode === 'validate' ? undefined : sizeProposalStep(targetConfig, opened.usage);
    // The write-back branches' pull requests the holds read, which the write-back step then does not list again.
    const writeBackPulls: WriteBackBranchPulls = new Map();
    const report = scoped ? undefined : await runPass({
      target: opened.target, git: opened.git, cluster: opened.cluster, mode: options.mode === 'validate' ? 'plan' : options.mode,
      holderIdentity: options.holderIdentity, timing: options.timing ?? defaultTiming,
      ...(opened.recordKey ? { recordKey: opened.recordKey } : {}),
      ...(options.remainingMs ? { remainingMs: options.remainingMs } : {}),
      onEvent: (line) => options.onEvent?.(targetConfig.name, line),
      ...(options.now ? { now: () => new Date(now()) } : {}),
      ...(proposeSizes ? { proposeSizes } : {}),
      // A live template grown outside Git is held, not shrunk, while its write-back proposes it (needs the pull requests).
      ...(opened.github && targetConfig.pullRequests.writeBack ? { writeBackHolds: writeBackHolds(opened.github.host, opened.target.name, writeBackPulls, (line) => options.onEvent?.(targetConfig.name, line)) } : {}),
    });
    let feedback: FeedbackResult | undefined;
    let recovery: RecoveryResult | undefined;
    let growth: ProposalsResult | undefined;
    let writeBack: ProposalsResult | undefined;
    const managesProposals = targetConfig.pullRequests.recovery || targetConfig.pullRequests.writeBack || targetConfig.growth !== undefined;
    if (opened.github && report && report.outcome !== 'busy' && options.mode === 'plan' && managesProposals) {
      // A plan writes nothing, but says which proposal pull requests are open (one listing): after a failure, what a
      // person looks for next. Not reading them costs the plan nothing else.
      const open = await openProposals(opened.github.host, opened.target.name).catch((error: unknown): undefined => {
        options.onEvent?.(targetConfig.name, `proposal pull requests not read: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      if (open && targetConfig.pullRequests.recovery) recovery = openRecoveryPullRequests(open);
      if (open && targetConfig.pullRequests.writeBack) {
        const writeBacks = listedProposals(open, [writeBackKind.name]);
        if (report.writeBack?.length || writeBacks.outcomes.length > 0) writeBack = writeBacks;
      }
      if (open && targetConfig.growth) growth = listedProposals(open, [growthKind.name]);
    }
    // A busy pass still publishes: its pull requests' checks (plans, read-only) and the progress of each change that
    // waits for the pass holding the target, saying until when; recovery is the holder's.
    if (opened.github && options.mode !== 'plan') {
      const github = opened.github;
      // The target's open proposals, listed once for every kind's step (each reads and writes only its own kinds), by
      // the first step that runs: a step left for the next pass lists nothing, one that fails to list fails them all.
      let listing: Promise<OpenProposal[]> | undefined;
      const openProposalsOnce = (): Promise<OpenProposal[]> => (listing ??= openProposals(github.host, opened.target.name));
      const applied = options.mode === 'apply' && report && report.outcome !== 'busy' ? report : undefined;
      if (targetConfig.pullRequests.recovery && applied) {
        recovery = await githubStep('recovery pull requests', async () => manageRecoveryPullRequests({
          host: github.host, repository: github.repository, branch: github.branch, target: opened.target, report: applied, open: await openProposalsOnce(),
          hasTime: () => hasTimeFor(options.remainingMs, itemMs),
        }));
        logProposals(recovery);
      }
      if (targetConfig.pullRequests.writeBack && applied) {
        // Pull requests proposing a size grown outside Git back into it (`pullRequests.writeBack`, recovery's by default).
        writeBack = await githubStep('write-back pull requests', async () => manageWriteBackPullRequests({
          host: github.host, repository: github.repository, branch: github.branch, target: opened.target, report: applied, open: await openProposalsOnce(),
          listed: writeBackPulls, hasTime: () => hasTimeFor(options.remainingMs, itemMs),
        }));
        logProposals(writeBack);
      }
      if (targetConfig.growth && options.mode === 'apply' && report && report.outcome !== 'busy') {
        const openAtOnce = targetConfig.growth.openAtOnce;
        growth = await githubStep('growth pull requests', async () => manageGrowthPullRequests({
          host: github.host, repository: github.repository, branch: github.branch, target: opened.target, report, openAtOnce, open: await openProposalsOnce(),
          hasTime: () => hasTimeFor(options.remainingMs, itemMs),
        }));
        logProposals(growth);
      }
      const recoveryNotes = new Map<string, Partial<Record<ProposalKindName, string>>>();
      for (const o of (recovery?.outcomes ?? []).filter((o) => o.action === 'impossible' || o.action === 'declined-before' || o.action === 'failed')) {
        recoveryNotes.set(o.key, { ...recoveryNotes.get(o.key), [o.kind]: o.reason ?? o.action });
      }
      feedback = await githubStep('pull request checks and progress', () => publishFeedback({
        host: github.host, repository: github.repository, branch: github.branch, links: github.links,
        target: opened.target, cluster: opened.cluster, ...(report ? { report } : {}),
        ...(opened.usage ? { usage: opened.usage } : {}), ...(options.now ? { now: () => new Date(now()) } : {}),
        validatePullRequests: targetConfig.pullRequests.validate, forkPullRequests: targetConfig.pullRequests.forks,
        hasTime: () => hasTimeFor(options.remainingMs, itemMs),
        ...(recovery ? { recoveryLinks: recovery.links } : {}), recoveryNotes,
        ...(writeBack ? { writeBackLinks: writeBack.links } : {}), proposals: proposalOutcomes({ recovery, growth, writeBack }), readWriteBackLinks: writeBackLinksOf(writeBack, github.host, opened.target.name, targetConfig.pullRequests.writeBack),
        ...(options.mergeGroup && options.mode === 'validate' ? { mergeGroup: options.mergeGroup } : {}),
        ...(options.pullRequest !== undefined && options.mode === 'validate' ? { onlyPullRequest: options.pullRequest } : {}),
      }));
      for (const write of feedback?.writes ?? []) options.onEvent?.(targetConfig.name, `github: ${write}`);
      for (const failure of feedback?.failures ?? []) options.onEvent?.(targetConfig.name, `github: could not publish ${failure.item}: ${failure.error}`);
      for (const check of feedback?.checks ?? []) {
        for (const verdict of check.foreign) options.onEvent?.(targetConfig.name, `github: ${foreignVerdictLine(verdict, validateContext(targetConfig.name), `pull request #${check.number} head ${check.headSha.slice(0, 7)}`)}`);
      }
      for (const item of feedback?.deferred ?? []) defer(item, 'the invocation is running out of time');
    }
    const error = githubFailures.length > 0 ? `GitHub: ${githubFailures.join('; ')}` : undefined;
    return finish({ target: targetConfig.name, report, feedback, recovery, ...(growth ? { growth } : {}), ...(writeBack ? { writeBack } : {}), error });
  } catch (error) {
    return finish({ target: targetConfig.name, report: undefined, feedback: undefined, recovery: undefined, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * The write-back links a pull request's check shows on a blocked "decrease": this pass's, or (a validate run, which
 * manages none) the open write-back pull requests, listed once and only when a check asks.
 */
function writeBackLinksOf(writeBack: ProposalsResult | undefined, host: ReviewHost, target: string, enabled: boolean): WriteBackLinks | undefined {
  if (writeBack) return () => Promise.resolve(writeBack.links);
  if (!enabled) return undefined;
  let listed: Promise<ReadonlyMap<string, string>> | undefined;
  return () => {
    listed ??= openProposals(host, target).then((open) => listedProposals(open, [writeBackKind.name]).links, () => new Map<string, string>());
    return listed;
  };
}
