// The shape a target's run takes when it leaves the process (CLI `--json`, the Lambda result, logs): plain JSON only.
// Sizes travel as strings (a BigInt cannot be serialised) and maps as objects (a Map serialises to `{}`).
import type { FeedbackResult } from '../feedback/publish-feedback.ts';
import type { PassReport } from '../engine/run-pass.ts';
import { passVerdict, type PassVerdict } from '../engine/report/pass-verdict.ts';
import type { RecoveryDecision } from '../proposals/recovery/choose-recovery-size.ts';
import type { RecoveryOutcome } from '../proposals/recovery/manage-recovery-pull-requests.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import type { TargetRun } from './run-targets.ts';

export type RecoveryDecisionJson =
  | Exclude<RecoveryDecision, { kind: 'propose' }>
  | (Omit<Extract<RecoveryDecision, { kind: 'propose' }>, 'bytes'> & { /** Decimal bytes. */ bytes: string });

export interface RecoveryOutcomeJson extends Omit<RecoveryOutcome, 'decision'> {
  decision: RecoveryDecisionJson | undefined;
}

export interface RecoveryResultJson {
  /** `namespace/statefulset/template` -> recovery PR URL. */
  links: Record<string, string>;
  outcomes: RecoveryOutcomeJson[];
  writes: string[];
}

export interface ProposalsResultJson {
  /** `namespace/statefulset/template` -> pull request URL. */
  links: Record<string, string>;
  outcomes: ProposalOutcome[];
  writes: string[];
}

export interface TargetRunJson {
  target: string;
  /** Whether the run needs a person, and for what (engine/report/pass-verdict.ts): what the exit code and the metrics say. */
  verdict: PassVerdict;
  /** `report.outcome` says how far the pass got (ok: every StatefulSet looked at), not whether all is well. */
  report: PassReport | undefined;
  feedback: FeedbackResult | undefined;
  recovery: RecoveryResultJson | undefined;
  /** Growth pull requests (an applying pass of a target with `growth`): what became of each, and the writes. */
  growth?: { outcomes: ProposalOutcome[]; writes: string[] };
  /** Write-back pull requests (Git set to a size grown outside it); `links` is what a blocked "decrease" links. */
  writeBack?: ProposalsResultJson;
  error: string | undefined;
  deferred: string[];
  durationMs: number;
  apiCalls: { github: number; kubernetes: number };
}

export function recoveryDecisionJson(decision: RecoveryDecision): RecoveryDecisionJson {
  return decision.kind === 'propose' ? { ...decision, bytes: decision.bytes.toString() } : decision;
}

/** JSON.stringify would turn a Map or Set into `{}` without a word; refuse them so a new one is caught by the tests. */
function refuseLossyValues(_key: string, value: unknown): unknown {
  if (value instanceof Map || value instanceof Set) throw new TypeError('a Map or Set would serialise to {}; convert it in report-json.ts');
  return value;
}

/** Exactly what a reader of the JSON gets (undefined fields dropped), so in-process callers see the same thing. */
export function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, refuseLossyValues)) as T;
}

export function targetRunJson(run: TargetRun): TargetRunJson {
  return plainJson<TargetRunJson>({
    target: run.target,
    verdict: passVerdict(run),
    report: run.report,
    feedback: run.feedback,
    recovery: run.recovery && {
      links: Object.fromEntries(run.recovery.links),
      outcomes: run.recovery.outcomes.map((o) => ({ ...o, decision: o.decision && recoveryDecisionJson(o.decision) })),
      writes: run.recovery.writes,
    },
    ...(run.growth ? { growth: { outcomes: run.growth.outcomes, writes: run.growth.writes } } : {}),
    ...(run.writeBack ? { writeBack: { links: Object.fromEntries(run.writeBack.links), outcomes: run.writeBack.outcomes, writes: run.writeBack.writes } } : {}),
    error: run.error,
    deferred: run.deferred,
    durationMs: run.durationMs,
    apiCalls: { ...run.apiCalls },
  });
}
