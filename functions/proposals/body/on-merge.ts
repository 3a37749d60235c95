// A proposal body's "After merge": what the next pass does with the change, and what the reviewer will see. Pure.
import type { BodySection } from './section.ts';

export function onMergeSection(text: string): BodySection {
  return { heading: 'After merge', lines: [text] };
}
