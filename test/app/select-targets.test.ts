// `--target NAME` (and a manual invocation's target) that the configuration does not have: the targets it has, and
// the one probably meant.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectTargets } from '../../functions/app/select-targets.ts';
import type { Config } from '../../functions/domain/config.ts';

const config = { targets: [{ name: 'prod-eu' }, { name: 'prod-us' }, { name: 'staging' }] } as unknown as Config;

describe('selecting a target by name', () => {
  it('runs every target without a name, and the one named', () => {
    assert.equal(selectTargets(config, undefined).length, 3);
    assert.deepEqual(selectTargets(config, 'staging').map((t) => t.name), ['staging']);
  });

  it('names the targets and, for a near miss, the one probably meant', () => {
    assert.throws(() => selectTargets(config, 'stagign'), { message: 'no target named stagign in the configuration (targets: prod-eu, prod-us, staging); did you mean staging?' });
    assert.throws(() => selectTargets(config, 'prd-eu'), { message: 'no target named prd-eu in the configuration (targets: prod-eu, prod-us, staging); did you mean prod-eu?' });
    assert.throws(() => selectTargets(config, 'analytics'), { message: 'no target named analytics in the configuration (targets: prod-eu, prod-us, staging)' });
  });
});
