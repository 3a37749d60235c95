import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity as q } from '../../functions/domain/quantity.ts';
import { costOfGrowth, formatMoney, growthOfReplicas, totalCost } from '../../functions/domain/volume-cost.ts';

const gi = (n: number): bigint => BigInt(n) * 2n ** 30n;

describe('volume cost', () => {
  it('counts each volume at the largest of request, capacity and allocated, and a replica without a PVC at the template size', () => {
    const pvcs = [
      { request: q('10Gi'), capacity: q('10Gi'), allocated: undefined },
      { request: q('20Gi'), capacity: q('10Gi'), allocated: undefined }, // patched, the resizer still at work
      { request: q('15Gi'), capacity: q('10Gi'), allocated: q('30Gi') }, // a failed 30Gi expansion still counts as 30Gi
    ];
    assert.equal(growthOfReplicas(gi(20), gi(10), 4, pvcs), gi(10) + 0n + 0n + gi(10));
    assert.equal(growthOfReplicas(gi(5), gi(10), 1, []), 0n, 'a volume never shrinks, so a lower size adds nothing');
  });

  it('prices the growth per GiB-month of its class, and knows when a class has no price', () => {
    const prices = { currency: 'EUR', perGiBMonth: { gp3: 0.08 } };
    assert.deepEqual(costOfGrowth(gi(1250), 'gp3', prices), { storageClassName: 'gp3', growthBytes: gi(1250), currency: 'EUR', pricePerGiBMonth: 0.08, monthlyIncrease: 100 });
    assert.equal(costOfGrowth(gi(3), 'io2', prices)?.monthlyIncrease, undefined);
    assert.equal(costOfGrowth(gi(3), 'gp3', undefined), undefined);
  });

  it('sums priced costs and names the classes it could not price', () => {
    const prices = { currency: 'USD', perGiBMonth: { gp3: 0.08 } };
    const total = totalCost([costOfGrowth(gi(10), 'gp3', prices), costOfGrowth(gi(20), 'io2', prices), undefined, costOfGrowth(gi(5), 'gp3', prices)]);
    assert.deepEqual(total, { currency: 'USD', monthlyIncrease: 1.2, unpricedClasses: ['io2'] });
    assert.equal(totalCost([undefined]), undefined);
  });

  it('formats money with its sign, and sub-cent amounts so that they do not read as free', () => {
    assert.equal(formatMoney(12.8, 'USD'), '+12.80 USD');
    assert.equal(formatMoney(0.0012, 'USD'), '+0.0012 USD');
    assert.equal(formatMoney(0, 'EUR'), '+0.00 EUR');
  });
});
