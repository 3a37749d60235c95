// A proposal body's header: what happened to which template, in one heading and one sentence. Pure.
import type { BodySection } from './section.ts';

export function headerSection(heading: string, lead: string): BodySection {
  return { heading, lines: [lead] };
}
