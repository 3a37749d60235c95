// What the local `webhook` command does with a queued message, and what it says about it. A validation (a pull
// request's or a merge queue commit's check) runs as `plan` does, also on an EKS target with this machine's AWS
// credentials; a pass that applies on an EKS target is not run here (writes there are the deployed function's, as for
// `reconcile`), so it is refused before the delivery is answered rather than accepted and failed later. Each run is
// logged with its verdict: the checks it wrote, or the pass's outcome and problems.
import { hostname } from 'node:os';
import type { Config } from '../domain/config.ts';
import { runTargets, type TargetRun } from '../app/run-targets.ts';
import type { TargetMessage } from '../app/target-messages.ts';
import { passVerdict } from '../engine/report/pass-verdict.ts';
import { count } from '../domain/spelling.ts';
import { outcomeWords } from '../feedback/glossary.ts';
import { eksFromThisMachine } from './eks-access.ts';

/** Why `message` is not run by the local webhook; undefined when it is. */
export function notRunHere(config: Config, message: TargetMessage): string | undefined {
  const target = config.targets.find((t) => t.name === message.target);
  if (target === undefined || !('eks' in target.cluster) || message.action !== 'pass') return undefined;
  return `target ${target.name} is on EKS: a pass that applies there is the deployed function's (its role, its record key), `
    + 'so this push is not applied here; the deployed webhook applies it, or invoke the dispatcher (infra/README.md, step 7)';
}

/** One line per EKS target, said when the webhook starts: what it does for them. */
export function eksNotes(config: Config): string[] {
  return config.targets.filter((t) => 'eks' in t.cluster)
    .map((t) => `note: target ${t.name} is on EKS: its pull requests and merge queue commits are checked with this machine's AWS credentials (as plan); pushes to its branch are refused (422), not applied`);
}

/** The verdict of one run, for the log: its level and its line. */
export function runVerdictLine(message: TargetMessage, run: TargetRun | undefined): { level: 'info' | 'error'; text: string } {
  const what = `${message.action} ${message.target}`;
  if (run === undefined) return { level: 'error', text: `${what}: no such target in the configuration` };
  if (run.error !== undefined) return { level: 'error', text: `${what}: error: ${run.error}` };
  if (message.action === 'validate') {
    const checks = [
      ...(run.feedback?.checks ?? []).map((c) => `pull request #${c.number} ${c.state}: ${c.description}`),
      ...(run.feedback?.mergeGroup ? [`merge queue commit ${run.feedback.mergeGroup.headSha.slice(0, 7)} ${run.feedback.mergeGroup.state}: ${run.feedback.mergeGroup.description}`] : []),
    ];
    if (checks.length === 0) {
      return { level: 'info', text: `${what}: nothing to check (${message.pullRequest !== undefined ? `pull request #${message.pullRequest} is closed or changes none of the target's files` : 'no open pull request changes the target\'s files'})` };
    }
    const failed = [...(run.feedback?.checks ?? []), ...(run.feedback?.mergeGroup ? [run.feedback.mergeGroup] : [])].some((c) => c.state !== 'success');
    return { level: failed ? 'error' : 'info', text: `${what}: ${checks.join('; ')}` };
  }
  const verdict = passVerdict(run);
  const problems = verdict.problems.map((p) => `${p.subject} ${p.reason}`);
  // Where the sets stand (`1 converged, 3 in progress`): a pass that is ok may still have work for the next one.
  const tally = new Map<string, number>();
  for (const sts of run.report?.statefulSets ?? []) tally.set(outcomeWords[sts.outcome], (tally.get(outcomeWords[sts.outcome]) ?? 0) + 1);
  const states = [...tally].map(([words, n]) => `${n} ${words}`).join(', ');
  return {
    level: verdict.problems.length > 0 ? 'error' : 'info',
    text: `${what}: ${verdict.outcome}${states === '' ? '' : ` (${states})`}${problems.length > 0 ? `; ${count(problems.length, 'problem')}: ${problems.join(', ')}` : ''}`,
  };
}

/** Runs `message` in this process, as the worker Lambda would (one target, one pass or validation). */
export async function runLocally(config: Config, message: TargetMessage, onEvent: (target: string, line: string) => void, env?: NodeJS.ProcessEnv): Promise<TargetRun | undefined> {
  const [run] = await runTargets(config, {
    mode: message.action === 'validate' ? 'validate' : 'apply', targetName: message.target,
    ...(message.mergeGroup ? { mergeGroup: message.mergeGroup } : {}), ...(message.pullRequest !== undefined ? { pullRequest: message.pullRequest } : {}),
    ...(message.rerun ? { rerun: message.rerun } : {}),
    holderIdentity: `cli-webhook-${hostname()}-${process.pid}`,
    // Only validations reach EKS from here (notRunHere refuses the rest before they are queued).
    ...(message.action === 'validate' ? { eksKubeConfig: eksFromThisMachine('sts-volume-gitops-webhook') } : {}),
    ...(env ? { env } : {}),
    onEvent,
  });
  return run;
}
