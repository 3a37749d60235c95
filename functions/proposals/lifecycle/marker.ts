// The marker a proposal's pull request body starts with, written and read here only: the proposal's identity and the
// values that tell one proposal of that identity from another (a recovery's `from` and `to`). It is how an open pull
// request is found to be unchanged, how a closed one is matched to what a person declined, and how a pull request is
// told to be ours at all (with its branch: lifecycle/pull-requests.ts). On the next line, the evidence stamp: when
// what the body shows was read, and what it rests on (evidence-refresh.ts decides when it is rewritten).
import type { EvidenceStamp } from './evidence-refresh.ts';
import { isProposalKindName, parseTemplateKey, templateKey, type ProposalIdentity } from './identity.ts';

export type ProposalValues = Readonly<Record<string, string>>;

export interface ProposalMark {
  identity: ProposalIdentity;
  values: ProposalValues;
}

const opening = '<!-- sts-volume-gitops:proposal';

/** `<!-- sts-volume-gitops:proposal kind=size-recovery key=db/pg/data from=100Gi to=50Gi -->` */
export function writeMarker(mark: ProposalMark): string {
  const values = Object.entries(mark.values).map(([name, value]) => ` ${name}=${encodeURIComponent(value)}`).join('');
  return `${opening} kind=${mark.identity.kind} key=${templateKey(mark.identity)}${values} -->`;
}

/** The mark in a pull request's body: this version's, or the recovery marker of versions before it; else undefined. */
export function readMarker(body: string): ProposalMark | undefined {
  return readCurrent(body) ?? readRecoveryMarker(body);
}

export function sameValues(a: ProposalValues, b: ProposalValues): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

const stampOpening = '<!-- sts-volume-gitops:evidence';

/** `<!-- sts-volume-gitops:evidence at=2026-11-28T14:00:00.000Z basis=data-pg-0%20bytes -->`, on the line after the marker. */
export function writeEvidenceStamp(stamp: EvidenceStamp): string {
  return `${stampOpening} at=${encodeURIComponent(stamp.at)}${stamp.basis === undefined ? '' : ` basis=${encodeURIComponent(stamp.basis)}`} -->`;
}

/** The stamp in a body, or undefined (a body an earlier version wrote, or a person's edit that took it out). */
export function readEvidenceStamp(body: string): EvidenceStamp | undefined {
  const [, at, basis] = /<!-- sts-volume-gitops:evidence at=(\S+)(?: basis=(\S+))? -->/.exec(body) ?? [];
  try {
    return at === undefined ? undefined : { at: decodeURIComponent(at), ...(basis === undefined ? {} : { basis: decodeURIComponent(basis) }) };
  } catch {
    return undefined; // not a stamp this version wrote
  }
}

function readCurrent(body: string): ProposalMark | undefined {
  const match = /<!-- sts-volume-gitops:proposal kind=(\S+) key=(\S+)((?: [a-z][a-zA-Z]*=\S*)*) -->/.exec(body);
  const [, kind, key, fields] = match ?? [];
  const ref = key === undefined ? undefined : parseTemplateKey(key);
  if (kind === undefined || !isProposalKindName(kind) || !ref) return undefined;
  const values: Record<string, string> = {};
  for (const field of (fields ?? '').trim().split(' ').filter((f) => f !== '')) {
    const [name = '', value = ''] = field.split('=');
    try {
      values[name] = decodeURIComponent(value);
    } catch {
      return undefined; // not a marker this version wrote
    }
  }
  return { identity: { kind, ...ref }, values };
}

/**
 * `<!-- sts-volume-gitops:recovery key=db/pg/data failed=100Gi proposed=50Gi -->`, a class recovery's key ending in
 * `.volume-attributes-class`: what versions before this one wrote, so their open pull requests are still found.
 */
function readRecoveryMarker(body: string): ProposalMark | undefined {
  const match = /<!-- sts-volume-gitops:recovery key=(\S+) failed=(\S+) proposed=(\S+) -->/.exec(body);
  const [, key = '', from = '', to = ''] = match ?? [];
  const forClass = key.endsWith('.volume-attributes-class');
  const ref = match ? parseTemplateKey(forClass ? key.slice(0, -'.volume-attributes-class'.length) : key) : undefined;
  return ref && { identity: { kind: forClass ? 'class-recovery' : 'size-recovery', ...ref }, values: { from, to } };
}
