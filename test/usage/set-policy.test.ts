// A StatefulSet's own growth policy from annotations on its manifest (functions/usage/set-policy.ts): each value over
// the target's, where it is set, and every wrong one said at its file:line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolAnnotation } from '../../functions/domain/desired-state.ts';
import type { GrowthPolicy } from '../../functions/domain/usage-config.ts';
import { setPolicy } from '../../functions/usage/set-policy.ts';

const target: GrowthPolicy = { usedPercent: 80, fullWithinSeconds: 7 * 86_400, step: { percent: 50 }, max: '500Gi', openAtOnce: 5 };
const at = (line: number) => ({ path: 'k8s/db/pg.yaml', line, column: 5 });
const annotation = (name: string, value: unknown, line = 6): ToolAnnotation => ({ name: `sts-volume-gitops.io/${name}`, value, location: at(line) });

describe('a StatefulSet\'s growth policy', () => {
  it('is the target\'s without annotations, each value saying so', () => {
    assert.deepEqual(setPolicy(target), {
      kind: 'on',
      usedPercent: { value: 80, setBy: 'growth.usedPercent on the target' },
      fullWithinSeconds: { value: 604_800, setBy: 'growth.fullWithin on the target' },
      step: { value: { percent: 50 }, setBy: 'growth.step on the target' },
      max: { value: '500Gi', setBy: 'growth.max on the target' },
    });
  });

  it('takes each annotation over the target\'s value, naming where it is written', () => {
    const policy = setPolicy(target, [
      annotation('growth', 'on', 5), annotation('growth-used-percent', '90', 6), annotation('growth-full-within', '3d', 7),
      annotation('growth-step', '20Gi', 8), annotation('growth-max', '1Ti', 9),
      // The tool's own status annotation is no policy and no mistake.
      { name: 'sts-volume-gitops.io/volume-claim-templates', value: '[]', location: undefined },
    ]);
    assert.deepEqual(policy, {
      kind: 'on',
      usedPercent: { value: 90, setBy: 'sts-volume-gitops.io/growth-used-percent at k8s/db/pg.yaml:6' },
      fullWithinSeconds: { value: 3 * 86_400, setBy: 'sts-volume-gitops.io/growth-full-within at k8s/db/pg.yaml:7' },
      step: { value: { size: '20Gi' }, setBy: 'sts-volume-gitops.io/growth-step at k8s/db/pg.yaml:8' },
      max: { value: '1Ti', setBy: 'sts-volume-gitops.io/growth-max at k8s/db/pg.yaml:9' },
    });
  });

  it('is off where the set says "off", read from the live set when a chart renders it', () => {
    assert.deepEqual(setPolicy(target, [annotation('growth', 'off', 4)]), { kind: 'off', setBy: 'sts-volume-gitops.io/growth at k8s/db/pg.yaml:4' });
    assert.deepEqual(setPolicy(target, [{ name: 'sts-volume-gitops.io/growth', value: 'off', location: undefined }]), { kind: 'off', setBy: 'sts-volume-gitops.io/growth on the live StatefulSet' });
  });

  it('says every wrong value at its line, and a misspelt name with the one meant', () => {
    const policy = setPolicy(target, [
      annotation('growth', 'false', 4), annotation('growth-used-percent', 90, 5), annotation('growth-step', '100Mi', 6),
      annotation('growth-max', 'big', 7), annotation('growth-full-within', 'soon', 8), annotation('grwth-max', '1Ti', 9), annotation('growth-ceiling', '1Ti', 10),
    ]);
    assert.equal(policy.kind, 'invalid');
    assert.deepEqual(policy.kind === 'invalid' ? policy.problems : [], [
      'sts-volume-gitops.io/grwth-max at k8s/db/pg.yaml:9 is not an annotation of this tool; did you mean sts-volume-gitops.io/growth-max?',
      'sts-volume-gitops.io/growth-ceiling at k8s/db/pg.yaml:10 is not an annotation of this tool (its growth annotations: sts-volume-gitops.io/growth, sts-volume-gitops.io/growth-used-percent, sts-volume-gitops.io/growth-full-within, sts-volume-gitops.io/growth-step, sts-volume-gitops.io/growth-max)',
      'sts-volume-gitops.io/growth at k8s/db/pg.yaml:4 is "false"; write "off" to turn growth off for this StatefulSet, or "on"',
      'sts-volume-gitops.io/growth-used-percent at k8s/db/pg.yaml:5 is 90, not a string: Kubernetes keeps annotations as strings, so quote it ("90")',
      'sts-volume-gitops.io/growth-full-within at k8s/db/pg.yaml:8 is "soon", not a duration such as "7d" or "36h"',
      'sts-volume-gitops.io/growth-step at k8s/db/pg.yaml:6 "100Mi" is less than 1Gi, the smallest step growth takes; write 1Gi or more, or a percentage',
      'sts-volume-gitops.io/growth-max at k8s/db/pg.yaml:7 "big" is not a size: invalid quantity "big": expected a number followed by an optional suffix (Ki, Mi, Gi, ..., k, M, G, ..., or an exponent); write a quantity such as 500Gi',
    ]);
  });
});
