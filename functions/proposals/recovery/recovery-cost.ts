// What a size recovery changes, for its pull request's body: the request goes down from the size that failed, while
// the volumes, which never got it, grow from their capacity (KEP-1790); body/cost.ts prices that growth. Pure.
import type { PriceConfig } from '../../domain/config.ts';
import { formatBytesLike, reportedQuantity } from '../../domain/quantity.ts';
import { growthOfReplicas, reportedVolume, type VolumeSizes } from '../../domain/volume-cost.ts';
import type { TemplateReport } from '../../engine/report/pass-report.ts';
import type { BodySection } from '../body/section.ts';
import { costSection } from '../body/cost.ts';

/** The body's "What it changes": direction and, with prices configured, the monthly cost. None when sizes cannot be read. */
export function recoveryChangeSection(input: {
  template: Pick<TemplateReport, 'pvcs' | 'replicas' | 'storageClassName'>; failed: string; proposed: string; prices: PriceConfig | undefined;
}): BodySection | undefined {
  const { template } = input;
  const failed = reportedQuantity(input.failed);
  const proposed = reportedQuantity(input.proposed);
  if (!failed || !proposed) return undefined;
  const volumes: VolumeSizes[] = template.pvcs.filter((p) => p.state !== 'missing').map((p) => reportedVolume({
    request: p.request, capacity: p.capacity, failed: p.terminal && p.failedOn !== 'class',
  }));
  const capacities = volumes.flatMap((v) => (v.capacity ? [v.capacity.bytes] : [])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const [smallest, largest] = [capacities[0], capacities.at(-1)];
  if (smallest === undefined || largest === undefined) return undefined;
  const at = smallest === largest ? formatBytesLike(smallest, proposed) : `${formatBytesLike(smallest, proposed)}–${formatBytesLike(largest, proposed)}`;
  return costSection({
    direction: `The request goes down from ${failed.text} to ${proposed.text}; the volumes, at ${at} (their capacity: ${failed.text} was never provisioned), grow to ${proposed.text}.`,
    growth: growthOfReplicas(proposed.bytes, failed.bytes, template.replicas, volumes), like: proposed,
    storageClassName: template.storageClassName, prices: input.prices,
  });
}
