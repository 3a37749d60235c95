// A proposal body's footer: the lifecycle's promise, the same for every kind but for when a declined proposal comes
// back (the kind's `reproposedWhen`), and when its evidence was read and how often it is refreshed
// (lifecycle/evidence-refresh.ts). Pure.
import { evidenceRefreshHours } from '../lifecycle/evidence-refresh.ts';
import type { BodySection } from './section.ts';

/** `2026-11-28 14:00 UTC`: an ISO time to the minute, as a reviewer reads it. */
export function evidenceTime(at: string): string {
  const time = new Date(at);
  return Number.isNaN(time.getTime()) ? at : `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function footerSection(reproposedWhen: string, evidenceAt?: string): BodySection {
  const evidence = evidenceAt === undefined ? ''
    : ` What it shows was read at ${evidenceTime(evidenceAt)}; when that moves, it is refreshed at most every ${evidenceRefreshHours} hours, and at once when what the proposal rests on changes.`;
  return {
    lines: [`<sub>Opened by sts-volume-gitops, which updates it in place when its proposal changes and closes it with a comment once it is no longer needed. Closed without merging, it is not proposed again until ${reproposedWhen}.${evidence}</sub>`],
  };
}
