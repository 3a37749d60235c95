// What the progress comment says of volumes at their driver's maximum (engine/volumes/at-driver-maximum.ts): what a person can
// do, and what becomes of the claims once Git is back at the size the volumes have (the recovery pull request's body
// says the same: proposals/recovery/recovery-texts.ts). Pure.
import { claimsLastingStateWords, waysOutAtMaximum, type AtMaximumReport } from '../engine/volumes/at-driver-maximum.ts';
import { escapeMarkdown } from './escape-markdown.ts';

/** The progress comment's lines for a template at its driver's maximum: what can be done, and what becomes of the claims. */
export function atMaximumAdvice(failed: string, at: AtMaximumReport, onNode: boolean): string[] {
  return [
    `What can be done (${escapeMarkdown(at.noSizeCanSucceed)}):`,
    '',
    ...waysOutAtMaximum(failed, at.volumes).map((way) => `- ${escapeMarkdown(way)}`),
    '',
    escapeMarkdown(`Once Git is back at ${at.volumes}, the template asks for it again, so new replicas get volumes the driver provides. ${claimsLastingStateWords(failed, at.volumes, onNode)}`),
  ];
}
