// One pass per configured target, shared by the Lambda handler, the CLI and the demo. A target that fails (bad
// credentials, unreachable cluster) is reported and the next target still runs.
import type { Config } from '../domain/config.ts';
import { runPass, type PassMode, type PassReport } from '../engine/run-pass.ts';
import type { RecreationTiming } from '../engine/recreate-statefulset.ts';
import { openTarget, type OpenOptions } from './open-target.ts';
import { publishFeedback, type FeedbackResult } from '../feedback/publish-feedback.ts';
import { manageRecoveryPullRequests, type RecoveryResult } from '../recovery/manage-recovery-pull-requests.ts';

export interface TargetRun {
  target: string;
  report: PassReport | undefined;
  /** What was written to GitHub (GitHub sources only). */
  feedback: FeedbackResult | undefined;
  recovery: RecoveryResult | undefined;
  /** Set when the pass could not run or stopped on an unexpected error. */
  error: string | undefined;
}

export interface RunTargetsOptions extends OpenOptions {
  mode: PassMode;
  targetName?: string;
  holderIdentity: string;
  remainingMs?: () => number;
  onEvent?: (target: string, line: string) => void;
  timing?: RecreationTiming;
}

export const defaultTiming: RecreationTiming = {
  maxWaitMs: 10_000,
  pollIntervalMs: 500,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export class UnknownTargetError extends Error {
  constructor(name: string, known: readonly string[]) {
    super(`no target named ${name} in the configuration (targets: ${known.join(', ')})`);
    this.name = 'UnknownTargetError';
  }
}

export function selectTargets(config: Config, targetName: string | undefined): Config['targets'] {
  if (targetName === undefined) return config.targets;
  const selected = config.targets.filter((t) => t.name === targetName);
  if (selected.length === 0) throw new UnknownTargetError(targetName, config.targets.map((t) => t.name));
  return selected;
}

export async function runTargets(config: Config, options: RunTargetsOptions): Promise<TargetRun[]> {
  const runs: TargetRun[] = [];
  for (const targetConfig of selectTargets(config, options.targetName)) {
    try {
      const opened = await openTarget(targetConfig, options);
      const report = await runPass({
        target: opened.target, git: opened.git, cluster: opened.cluster, mode: options.mode,
        holderIdentity: options.holderIdentity, timing: options.timing ?? defaultTiming,
        ...(options.remainingMs ? { remainingMs: options.remainingMs } : {}),
        onEvent: (line) => options.onEvent?.(targetConfig.name, line),
      });
      let feedback: FeedbackResult | undefined;
      let recovery: RecoveryResult | undefined;
      if (opened.github && report.outcome !== 'busy' && options.mode === 'apply') {
        if (targetConfig.pullRequests.recovery) {
          recovery = await manageRecoveryPullRequests({ ...opened.github, target: opened.target, report });
          for (const write of recovery.writes) options.onEvent?.(targetConfig.name, `github: ${write}`);
        }
        const recoveryNotes = new Map((recovery?.outcomes ?? []).filter((o) => o.action === 'impossible' || o.action === 'declined-before')
          .map((o) => [o.key, o.reason ?? o.action]));
        feedback = await publishFeedback({
          ...opened.github, target: opened.target, cluster: opened.cluster, report,
          validatePullRequests: targetConfig.pullRequests.validate, forkPullRequests: targetConfig.pullRequests.forks,
          ...(recovery ? { recoveryLinks: recovery.links } : {}), recoveryNotes,
        });
        for (const write of feedback.writes) options.onEvent?.(targetConfig.name, `github: ${write}`);
      }
      runs.push({ target: targetConfig.name, report, feedback, recovery, error: undefined });
    } catch (error) {
      runs.push({ target: targetConfig.name, report: undefined, feedback: undefined, recovery: undefined, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return runs;
}
