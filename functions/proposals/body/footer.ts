// A proposal body's footer: the lifecycle's promise, the same for every kind but for when a declined proposal comes
// back (the kind's `reproposedWhen`). Pure.
import type { BodySection } from './section.ts';

export function footerSection(reproposedWhen: string): BodySection {
  return {
    lines: [`<sub>Opened by sts-volume-gitops, which updates it in place when its proposal changes and closes it with a comment once it is no longer needed. Closed without merging, it is not proposed again until ${reproposedWhen}.</sub>`],
  };
}
