// What a recovery pull request says when its volumes are at their driver's maximum (engine/at-driver-maximum.ts): no
// size can succeed, it puts Git back at the size the volumes have, what becomes of the claims, and what a person can
// do. Sections in the order of a size recovery's body (recovery/recovery-texts.ts). Pure.
import { claimsLastingStateWords, waysOutAtMaximum, type AtMaximumReport } from '../engine/at-driver-maximum.ts';
import { escapeMarkdown } from './escape-markdown.ts';

export interface AtMaximumSections {
  why: string[];
  change: string[];
  alternatives: string[];
  afterMerge: string[];
}

export function atMaximumRecoverySections(args: { failed: string; size: string; explanation: string; onNode: boolean }): AtMaximumSections {
  const { failed, size } = args;
  return {
    why: [
      `## Why ${escapeMarkdown(size)}`,
      '',
      `${escapeMarkdown(capitalized(args.explanation))}. Every size above the volumes' capacity is above the driver's maximum, and Kubernetes `
        + 'lets a failed request go down only to a size strictly above the capacity (KEP-1790).',
      '',
    ],
    change: [
      '## What it changes',
      '',
      escapeMarkdown(`Git's size goes back from ${failed} to ${size}, the size the volumes have: no volume grows, and nothing is added to the bill.`),
      '',
    ],
    alternatives: ['## Alternatives', '', ...waysOutAtMaximum(failed, size).map((way) => `- ${escapeMarkdown(way)}`), ''],
    afterMerge: [
      '## After merge',
      '',
      escapeMarkdown(`The next pass sets the StatefulSet's volumeClaimTemplate to ${size} (a template update: pods and claims untouched), `
        + `so that new replicas ask for ${size}, a size the driver provides. ${claimsLastingStateWords(failed, size, args.onNode)}`),
      '',
      'The status checks turn green. This pull request is closed automatically if the failure resolves another way.',
    ],
  };
}

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

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
