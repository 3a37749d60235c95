// A proposal body's notes: what else a person can do instead (a recovery's alternatives), as a list. Pure.
import type { BodySection } from './section.ts';

export function notesSection(heading: string, items: readonly string[]): BodySection {
  return { heading, lines: items.map((item) => `- ${item}`) };
}
