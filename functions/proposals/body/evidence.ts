// A proposal body's evidence: one line per claim (or replica) and, when there is one, what a component said, quoted
// in a block it cannot close. Pure.
import { codeBlock } from '../../feedback/escape-markdown.ts';
import type { BodySection } from './section.ts';

export function evidenceSection(items: readonly string[], quote?: { intro: string; text: string }): BodySection {
  return { lines: [...items.map((item) => `- ${item}`), ...(quote ? ['', quote.intro, '', codeBlock(quote.text)] : [])] };
}
