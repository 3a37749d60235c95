// The `## What it changes` section of a size recovery's body: direction from the volumes' capacity, cost at the prices.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PvcReport } from '../../../functions/engine/report/pass-report.ts';
import { recoveryChangeSection } from '../../../functions/proposals/recovery/recovery-cost.ts';

function pvc(ordinal: number, capacity: string | undefined, extra: Partial<PvcReport> = {}): PvcReport {
  return {
    name: `data-wh-${ordinal}`, ordinal, state: 'failed', request: '100Gi', capacity, message: 'exceeds maximum', terminal: true, since: undefined, failedOn: 'size', ...extra,
  };
}

describe('what a size recovery changes', () => {
  const template = { replicas: 3, storageClassName: 'capped', pvcs: [pvc(0, '20Gi'), pvc(1, '30Gi'), pvc(2, undefined, { state: 'missing', request: undefined, terminal: false })] };

  it('grows each volume from its own capacity and prices the sum', () => {
    const section = recoveryChangeSection({ template, failed: '100Gi', proposed: '50Gi', prices: { currency: 'EUR', perGiBMonth: { capped: 0.1 } } });
    assert.equal(section?.heading, 'What it changes');
    assert.equal(section?.lines.join('\n'), 'The request goes down from 100Gi to 50Gi; the volumes, at 20Gi–30Gi \\(their capacity: 100Gi was never provisioned\\), grow to 50Gi. '
      + 'That adds \\+5.00 EUR a month \\(50Gi more on capped at 0.1 EUR per GiB-month\\).');
  });

  it('names a class without a price, and says only the direction without prices', () => {
    assert.match(recoveryChangeSection({ template, failed: '100Gi', proposed: '50Gi', prices: { currency: 'USD', perGiBMonth: {} } })?.lines[0] ?? '',
      /StorageClass capped has no price in prices\.perGiBMonth: what 50Gi more costs is not known\.$/);
    assert.match(recoveryChangeSection({ template, failed: '100Gi', proposed: '50Gi', prices: undefined })?.lines[0] ?? '', /grow to 50Gi\.$/);
    assert.equal(recoveryChangeSection({ template: { ...template, pvcs: [] }, failed: '100Gi', proposed: '50Gi', prices: undefined }), undefined);
  });
});
