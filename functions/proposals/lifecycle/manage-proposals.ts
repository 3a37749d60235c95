// One pass of the proposals lifecycle for the kinds a step manages (recovery: size and class): each candidate template
// proposed or said why not, its pull request ensured (ensure-proposal.ts); then the kinds' open pull requests this
// pass did not propose for are closed when no longer needed (close-resolved.ts). Each item succeeds or fails on its
// own; a rate limit stops the step; an item without time left is left for the next pass. The target's open proposals
// are listed once a pass, before every step (app/run-targets.ts): each step reads only its own kinds there and opens
// or closes only its own kinds, so that one listing is what each step's cap and closing round need.
import type { PassReport } from '../../engine/report/pass-report.ts';
import type { ProposalPullRequest, ReviewHost } from '../../engine/ports.ts';
import { forEachItem } from '../../feedback/for-each-item.ts';
import type { ProposalKind, ProposalOutcome, Proposing } from '../proposal.ts';
import { closeNoLongerNeeded } from './close-resolved.ts';
import { ensureProposal, type ProposalPlace } from './ensure-proposal.ts';
import { describeProposal, proposalBranch, proposalNoun, templateKey, type ProposalIdentity } from './identity.ts';
import { openProposalOutcomes, type OpenProposal } from './pull-requests.ts';
import type { ProposalKindName } from './identity.ts';

/** A template a kind may propose for this pass; `propose` reads what it needs and says what it proposes, or why not. */
export interface ProposalCandidate {
  identity: ProposalIdentity;
  propose(): Promise<Proposing>;
  /** The pull requests from its branch, when this pass already read them (write-back's holds): not listed again. */
  pulls?: readonly ProposalPullRequest[] | undefined;
}

export interface ProposalsResult<O extends ProposalOutcome = ProposalOutcome> {
  /** `namespace/statefulset/template` -> the URL of the first pull request proposed for it, for statuses and comments. */
  links: Map<string, string>;
  outcomes: O[];
  /** Every write this step made to the review host, in order. */
  writes: string[];
  /** Proposals (and the closing round) left for the next pass because the invocation ran short of time. */
  deferred: string[];
}

export async function manageProposals(input: {
  host: ReviewHost; place: ProposalPlace; report: PassReport; kinds: readonly ProposalKind[]; candidates: readonly ProposalCandidate[];
  /**
   * The target's open proposals of every kind (lifecycle/pull-requests.ts), listed before this call's candidates: those
   * opened or updated by them are left out of the closing round by branch, so this listing is the one it needs.
   */
  open: readonly OpenProposal[];
  /** Whether there is time for one more item (a proposal makes up to six GitHub calls). */
  hasTime?: (() => boolean) | undefined;
  /**
   * At most this many pull requests of these kinds open at once for the target (growth's `openAtOnce`): candidates
   * come in order of precedence; one that would open another beyond it is `waiting`. Updating an open one, or one a
   * person declined, takes no place.
   */
  openAtOnce?: number | undefined;
}): Promise<ProposalsResult> {
  const { host, place, kinds } = input;
  const writesBefore = host.writes.length;
  const result: ProposalsResult = { links: new Map(), outcomes: [], writes: [], deferred: [] };
  const kindOf = (identity: ProposalIdentity): ProposalKind => {
    const kind = kinds.find((k) => k.name === identity.kind);
    if (!kind) throw new Error(`no proposal kind ${identity.kind} among ${kinds.map((k) => k.name).join(', ')}`);
    return kind;
  };
  const openOfTheseKinds = input.open.filter((o) => kinds.some((k) => k.name === o.mark.identity.kind));
  let places = input.openAtOnce === undefined ? undefined : input.openAtOnce - openOfTheseKinds.length;
  const limit = places === undefined ? undefined : {
    allows: () => (places ?? 0) > 0,
    reason: `${input.openAtOnce ?? 0} ${[...new Set(kinds.map((k) => proposalNoun(k.name)))].join(' and ')} pull requests are open at once for this target, its limit; this one waits for one to close`,
  };
  // One template that cannot be proposed (a file whose value cannot be edited alone, a GitHub error) is reported as
  // failed; the other templates' proposals and the rest of the pass go on.
  result.outcomes.push(...await forEachItem(input.candidates, {
    hasTime: input.hasTime,
    onDeferred: ({ identity }) => result.deferred.push(describeProposal(identity.kind, templateKey(identity))),
    onFailed: ({ identity }, error): ProposalOutcome => ({
      key: templateKey(identity), kind: identity.kind, action: 'failed', pullRequestUrl: undefined,
      reason: `no ${proposalNoun(identity.kind)} pull request could be proposed: ${error}`,
    }),
  }, async (candidate): Promise<ProposalOutcome> => {
    const { identity } = candidate;
    const proposing = await candidate.propose();
    if ('unproposable' in proposing) return { key: templateKey(identity), kind: identity.kind, action: 'impossible', pullRequestUrl: undefined, reason: proposing.unproposable };
    const outcome = await ensureProposal(host, proposing.proposal, kindOf(identity), place, limit, candidate.pulls);
    if (places !== undefined && outcome.action === 'opened') places -= 1;
    return outcome;
  }));
  result.links = linksOf(result.outcomes);
  if (input.hasTime?.() ?? true) {
    const proposed = new Set(input.candidates.map(({ identity }) => proposalBranch(place.target, identity)));
    const others = openOfTheseKinds.filter((o) => !proposed.has(o.pull.headRef));
    result.outcomes.push(...await closeNoLongerNeeded({ host, report: input.report, kinds, others }));
  } else {
    const nouns = [...new Set(kinds.map((k) => proposalNoun(k.name)))].join(' and ');
    result.deferred.push(`closing ${nouns} pull requests that are no longer needed`);
  }
  result.writes.push(...host.writes.slice(writesBefore));
  return result;
}

/** The open pull requests of `kinds` in the pass's listing, as a pass that writes nothing (`plan`) reports them. */
export function listedProposals(open: readonly OpenProposal[], kinds: readonly ProposalKindName[]): ProposalsResult {
  const outcomes = openProposalOutcomes(open, kinds);
  return { links: linksOf(outcomes), outcomes, writes: [], deferred: [] };
}

/** A template's progress links the first of its proposals that has a pull request (a size recovery before a class one). */
function linksOf(outcomes: readonly ProposalOutcome[]): Map<string, string> {
  const links = new Map<string, string>();
  for (const outcome of outcomes) {
    if (outcome.pullRequestUrl && !links.has(outcome.key)) links.set(outcome.key, outcome.pullRequestUrl);
  }
  return links;
}
