// A proposal body's "What it changes": which way the sizes go (the kind says), and with prices configured what the
// growth adds a month at the target's prices (domain/volume-cost.ts, the plan's own count). Pure.
import type { PriceConfig } from '../../domain/config.ts';
import { formatBytesLike, type Quantity } from '../../domain/quantity.ts';
import { monthly, showSize, unitPrice } from '../../domain/spelling.ts';
import { costOfGrowth } from '../../domain/volume-cost.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import type { BodySection } from './section.ts';

export function costSection(input: {
  /** Which way the request and the volumes go, in a sentence. */
  direction: string;
  /** The bytes the change adds across the replicas. */
  growth: bigint;
  /** A size in the unit the growth is said in. */
  like: Quantity;
  storageClassName: string | undefined;
  prices: PriceConfig | undefined;
}): BodySection {
  const { growth, storageClassName } = input;
  const cost = costOfGrowth(growth, storageClassName, input.prices);
  const more = showSize(formatBytesLike(growth, input.like));
  const costWords = !cost ? ''
    : cost.monthlyIncrease === undefined || cost.pricePerGiBMonth === undefined ? ` StorageClass ${storageClassName ?? '(none)'} has no price in prices.perGiBMonth: what ${more} more costs is not known.`
      : ` That adds ${monthly(cost.monthlyIncrease, cost.currency)} (${more} more on ${storageClassName ?? 'no class'} at ${unitPrice(cost.pricePerGiBMonth, cost.currency)}).`;
  return { heading: 'What it changes', lines: [escapeMarkdown(`${input.direction}${costWords}`)] };
}
