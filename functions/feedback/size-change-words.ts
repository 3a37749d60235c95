// How a size change reads wherever one is shown (plan comment, check annotations, CLI plan): from the size the volumes
// grow from. Usually the live template's size; after a failed expansion (KEP-1790) the request is lowered from a size
// the volumes never reached, and they grow from their capacity, so both are said; a template raised to the size its
// volumes already have (an autoscaler's size written back) only catches up: nothing grows, and no cost is said. Pure.
import { parseQuantity } from '../domain/quantity.ts';
import { change, type Medium } from '../domain/spelling.ts';
import type { TemplateReport } from '../engine/report/pass-report.ts';

type SizedTemplate = Pick<TemplateReport, 'from' | 'desiredSize' | 'volumesFrom' | 'catchesUp'>;

/** What the volumes grow from: `volumesFrom` when the report has one, else the live template's size. */
export function volumesGrowFrom(template: SizedTemplate): string | undefined {
  return template.volumesFrom ?? template.from;
}

/** `request lowered from 100Gi` when the volumes do not grow from the live request, else undefined. */
export function requestChangeWords(template: SizedTemplate): string | undefined {
  if (template.volumesFrom === undefined || template.from === undefined) return undefined;
  return `request ${isLower(template.desiredSize, template.from) ? 'lowered' : 'raised'} from ${template.from}`;
}

/** `the template catches up with its volumes, already 30Gi: nothing grows, no cost`, when that is all the change does. */
export function catchUpWords(template: SizedTemplate): string | undefined {
  if (template.catchesUp !== true) return undefined;
  return `the template catches up with its volumes, already ${volumesGrowFrom(template) ?? template.desiredSize}: nothing grows, no cost`;
}

/**
 * `10Gi → 20Gi`, `20Gi → 50Gi (request lowered from 100Gi)`, or, the template alone catching up, `20Gi → 30Gi (the
 * template catches up with its volumes, already 30Gi: nothing grows, no cost)` (`->` in a terminal).
 */
export function sizeChangeWords(template: SizedTemplate, medium: Medium): string {
  const catchUp = catchUpWords(template);
  if (catchUp !== undefined) return `${change(template.from ?? '?', template.desiredSize, medium)} (${catchUp})`;
  const request = requestChangeWords(template);
  return `${change(volumesGrowFrom(template) ?? '?', template.desiredSize, medium)}${request ? ` (${request})` : ''}`;
}

function isLower(size: string, than: string): boolean {
  try {
    return parseQuantity(size).bytes < parseQuantity(than).bytes;
  } catch {
    return false; // sizes in a report were parsed before; a text that is not one reads as raised
  }
}
