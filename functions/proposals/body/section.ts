// A part of a proposal's body, as every section file makes it and body/compose-body.ts joins them. Pure.

/** `## heading` when it has one, then its lines (Markdown, already escaped). */
export interface BodySection {
  heading?: string;
  lines: readonly string[];
}
