// One body for every kind of proposal, composed from named sections in a fixed order (as Renovate's PR bodies are):
// the marker, the header, the evidence, the change table, the kind's own sections, what it costs, notes, what happens
// on merge, and the footer. A kind fills the slots it has; the marker, the change table and the footer are the
// lifecycle's. Pure.
import type { ProposedEdit } from '../edits/editable-value.ts';
import { changeTableSection } from './change-table.ts';
import type { BodySection } from './section.ts';

/** What a kind writes in its pull request's body (body/header.ts, evidence.ts, cost.ts, notes.ts, on-merge.ts). */
export interface ProposalBody {
  /** What happened, and what it is about. */
  header: BodySection;
  /** What was found: the claims, the driver's words, the usage. */
  evidence?: BodySection;
  /** Sections only this kind has (a recovery's "Why 50Gi"), after the change table. */
  own?: readonly BodySection[];
  cost?: BodySection;
  notes?: BodySection;
  onMerge: BodySection;
}

/** What the lifecycle adds around a kind's sections: the marker first, the change, and the footer last. */
export interface BodyFrame {
  marker: string;
  edit: ProposedEdit;
  footer: BodySection;
}

export function composeBody(body: ProposalBody, frame?: BodyFrame): string {
  const sections = [
    body.header, body.evidence, frame && changeTableSection(frame.edit), ...(body.own ?? []), body.cost, body.notes, body.onMerge, frame?.footer,
  ].filter((s): s is BodySection => s !== undefined);
  const text = sections.map((s) => [...(s.heading === undefined ? [] : [`## ${s.heading}`, '']), ...s.lines].join('\n')).join('\n\n');
  return frame ? `${frame.marker}\n${text}` : text;
}
