// What a size recovery changes, for its pull request's body: the request goes down from the size that failed, while
// the volumes, which never got it, grow from their capacity (KEP-1790), and what that adds a month at the target's
// prices (domain/volume-cost.ts, the same count as the plan's). Pure.
import type { PriceConfig } from '../../domain/config.ts';
import { formatBytesLike, parseQuantity, type Quantity } from '../../domain/quantity.ts';
import { costOfGrowth, growthOfReplicas, type VolumeSizes } from '../../domain/volume-cost.ts';
import { monthly, showSize, unitPrice } from '../../domain/spelling.ts';
import type { TemplateReport } from '../../engine/pass-report.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';

/** A `## What it changes` section: direction and, with prices configured, the monthly cost. Empty when sizes cannot be read. */
export function recoveryChangeSection(input: {
  template: Pick<TemplateReport, 'pvcs' | 'replicas' | 'storageClassName'>; failed: string; proposed: string; prices: PriceConfig | undefined;
}): string[] {
  const { template, prices } = input;
  const failed = quantityOf(input.failed);
  const proposed = quantityOf(input.proposed);
  if (!failed || !proposed) return [];
  const volumes: VolumeSizes[] = template.pvcs.filter((p) => p.state !== 'missing').map((p) => ({
    request: quantityOf(p.request), capacity: quantityOf(p.capacity), allocated: undefined, failed: p.terminal && p.failedOn !== 'class',
  }));
  const capacities = volumes.flatMap((v) => (v.capacity ? [v.capacity.bytes] : [])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const [smallest, largest] = [capacities[0], capacities.at(-1)];
  if (smallest === undefined || largest === undefined) return [];
  const at = smallest === largest ? formatBytesLike(smallest, proposed) : `${formatBytesLike(smallest, proposed)}–${formatBytesLike(largest, proposed)}`;
  const direction = `The request goes down from ${failed.text} to ${proposed.text}; the volumes, at ${at} (their capacity: ${failed.text} was never provisioned), grow to ${proposed.text}.`;
  const growth = growthOfReplicas(proposed.bytes, failed.bytes, template.replicas, volumes);
  const cost = costOfGrowth(growth, template.storageClassName, prices);
  const more = showSize(formatBytesLike(growth, proposed));
  const costWords = !cost ? ''
    : cost.monthlyIncrease === undefined || cost.pricePerGiBMonth === undefined ? ` StorageClass ${template.storageClassName ?? '(none)'} has no price in prices.perGiBMonth: what ${more} more costs is not known.`
      : ` That adds ${monthly(cost.monthlyIncrease, cost.currency)} (${more} more on ${template.storageClassName ?? 'no class'} at ${unitPrice(cost.pricePerGiBMonth, cost.currency)}).`;
  return ['## What it changes', '', escapeMarkdown(`${direction}${costWords}`), ''];
}

function quantityOf(text: string | undefined): Quantity | undefined {
  if (text === undefined) return undefined;
  try {
    return parseQuantity(text);
  } catch {
    return undefined; // a report's sizes were parsed from the server's; one that is not a quantity is left out
  }
}
