import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity as q } from '../../functions/domain/quantity.ts';
import { committedBytes, costOfGrowth, growthOfReplicas, totalCost } from '../../functions/domain/volume-cost.ts';
import { formatMoney } from '../../functions/domain/spelling.ts';

const gi = (n: number): bigint => BigInt(n) * 2n ** 30n;

describe('volume cost', () => {
  it('counts each volume at its capacity or the size an expansion is working towards, and a replica without a PVC at the template size', () => {
    const pvcs = [
      { request: q('10Gi'), capacity: q('10Gi'), allocated: undefined },
      { request: q('20Gi'), capacity: q('10Gi'), allocated: undefined }, // patched, the resizer not at it yet
      { request: q('15Gi'), capacity: q('10Gi'), allocated: q('30Gi'), resizeStatus: 'ControllerResizeInProgress' }, // on its way to 30Gi
    ];
    assert.equal(growthOfReplicas(gi(20), gi(10), 4, pvcs), gi(10) + 0n + 0n + gi(10));
    assert.equal(growthOfReplicas(gi(5), gi(10), 1, []), 0n, 'a volume never shrinks, so a lower size adds nothing');
  });

  it('grows a volume whose expansion failed for good from its capacity, not from the size that failed (KEP-1790)', () => {
    // The recovery of issue 30: 100Gi was infeasible, the volumes are at 20Gi, the request goes down to 50Gi.
    const failed = { request: q('100Gi'), capacity: q('20Gi'), allocated: q('100Gi'), resizeStatus: 'ControllerResizeInfeasible' };
    assert.equal(committedBytes(failed), gi(20));
    assert.equal(growthOfReplicas(gi(50), gi(100), 2, [failed, failed]), gi(60));
    assert.equal(costOfGrowth(growthOfReplicas(gi(50), gi(100), 2, [failed, failed]), 'capped', { currency: 'USD', perGiBMonth: { capped: 0.125 } })?.monthlyIncrease, 7.5);
    // The same on a server before 1.31 (`ControllerResizeFailed`), and with no allocatedResources: the request failed.
    assert.equal(committedBytes({ ...failed, resizeStatus: 'ControllerResizeFailed' }), gi(20));
    assert.equal(committedBytes({ ...failed, allocated: undefined, resizeStatus: 'NodeResizeInfeasible' }), gi(20));
    // A node's refusal, in each status of the cycle the resizer and the kubelet keep it in (live-state.ts refusedOnNode).
    const refused = [{ type: 'NodeResizeError', status: 'True', reason: undefined, lastTransitionTime: undefined, message: 'failed to expand pvc with rpc error: code = OutOfRange desc = too big' }];
    for (const resizeStatus of ['NodeResizeInfeasible', 'NodeResizePending', 'NodeResizeInProgress']) {
      assert.equal(committedBytes({ ...failed, resizeStatus, conditions: refused }), gi(20), resizeStatus);
    }
    // Already lowered by hand to 40Gi: the resizer takes that request up, so it is as good as provisioned.
    assert.equal(committedBytes({ ...failed, request: q('40Gi') }), gi(40));
    // Not failed: the quota rule's max(request, allocated), and the capacity.
    assert.equal(committedBytes({ request: q('100Gi'), capacity: q('20Gi'), allocated: q('100Gi'), resizeStatus: 'ControllerResizeInProgress' }), gi(100));
    assert.equal(committedBytes({ request: q('10Gi'), capacity: q('12Gi'), allocated: undefined }), gi(12), 'a driver that rounds up bills its capacity');
    assert.equal(committedBytes({ request: q('10Gi'), capacity: undefined, allocated: undefined }), gi(10), 'an unbound claim is provisioned at its request');
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

  it('formats money with its sign and two decimals, always', () => {
    assert.equal(formatMoney(12.8, 'USD'), '+12.80 USD');
    assert.equal(formatMoney(0.0012, 'USD'), '+0.00 USD', 'two decimals, always (issue 35: +0.0002 beside +0.00)');
    assert.equal(formatMoney(0.005, 'USD'), '+0.01 USD');
    assert.equal(formatMoney(-0.001, 'USD'), '+0.00 USD', 'no "-0.00"');
    assert.equal(formatMoney(-2.5, 'USD'), '-2.50 USD');
    assert.equal(formatMoney(0, 'EUR'), '+0.00 EUR');
  });
});
