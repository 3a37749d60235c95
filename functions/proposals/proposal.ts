// What every kind of proposal (recovery now; growth and write-back next) hands the lifecycle: one Proposal (its
// identity, the one value it edits, its title, commit message and body sections) and one ProposalKind (the hooks that
// say when an open proposal is no longer needed and when a declined one may come back). The lifecycle
// (lifecycle/manage-proposals.ts) does the rest: find, open, update in place, close with a reason, respect a person's
// close. See README.md beside this file.
import type { PassReport } from '../engine/report/pass-report.ts';
import type { ProposalBody } from './body/compose-body.ts';
import type { ProposedEdit } from './edits/editable-value.ts';
import type { ProposalIdentity, ProposalKindName } from './lifecycle/identity.ts';
import type { ProposalMark, ProposalValues } from './lifecycle/marker.ts';

export interface Proposal {
  identity: ProposalIdentity;
  /**
   * What tells this proposal from another of the same identity (a recovery's `from` and `to`), kept in the body's
   * marker: an open pull request with the same values is left as it is; different ones update it in place.
   */
  values: ProposalValues;
  edit: ProposedEdit;
  title: string;
  /** A subject line, a blank line, why. */
  commitMessage: string;
  body: ProposalBody;
  /**
   * What the proposal rests on, in a few words the kind chooses (growth: which replicas are a reason to grow, and
   * why): kept in the body's evidence stamp; when it changes, an open pull request's evidence is rewritten at once
   * rather than at most every `evidenceRefreshHours` (lifecycle/evidence-refresh.ts).
   */
  basis?: string;
}

/** What a kind makes of a template this pass: a proposal, or why there is none. */
export type Proposing = { proposal: Proposal } | { unproposable: string };

/** The hooks a kind gives the lifecycle, beside its row in lifecycle/identity.ts. */
export interface ProposalKind {
  name: ProposalKindName;
  /**
   * Why an open pull request of this kind that this pass did not propose is no longer needed, only on positive
   * evidence from `report` (done, changed in Git, gone from a complete clean pass); undefined keeps it open.
   */
  resolution(report: PassReport, open: ProposalMark): string | undefined;
  /**
   * Whether a proposal a person closed without merging (`declined`) may be proposed again as `now`: it changed in a
   * way this kind says matters (a recovery: another failed or proposed value; a growth: usage a further step up).
   */
  changedSinceDeclined(declined: ProposalValues, now: ProposalValues): boolean;
  /** The same, in words, for the body's footer: `another size fails or another size is proposed`. */
  reproposedWhen: string;
}

export type ProposalAction =
  | 'opened' | 'updated' | 'unchanged'
  /** The same values, its title and body rewritten because the evidence they show moved (lifecycle/evidence-refresh.ts). */
  | 'refreshed' | 'left-alone' | 'declined-before' | 'impossible' | 'closed' | 'failed'
  /** Found open by a pass that writes nothing (`plan`). */
  | 'open'
  /** Not proposed this pass: the kind's limit on pull requests open at once is reached (growth's `openAtOnce`). */
  | 'waiting';

/** What became of one proposal in a pass. */
export interface ProposalOutcome {
  /** The template's `namespace/statefulset/template`. */
  key: string;
  kind: ProposalKindName;
  action: ProposalAction;
  pullRequest?: number;
  pullRequestUrl: string | undefined;
  /** The value it proposes, from what to what. */
  change?: { from: string; to: string };
  title?: string;
  body?: string;
  /** The one-line change, as a unified diff fragment. */
  diff?: string;
  reason?: string;
}
