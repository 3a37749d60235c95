// The hostile manifest corpus (manifest-cases.ts) read and planned in-process, under the manifest limits: each case is
// a located, readable error in its own file or the expected plan for db/pg, reading never throws, and the good
// StatefulSet in another file is still planned (10Gi -> 20Gi) beside it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity } from '../../functions/domain/quantity.ts';
import type { StatefulSetPlan } from '../../functions/engine/plan/plan.ts';
import { manifestCases } from './manifest-cases.ts';
import { goodFile, readAndPlan } from './manifest-world.ts';

function planOf(plans: readonly StatefulSetPlan[], key: string): StatefulSetPlan | undefined {
  return plans.find((p) => `${p.namespace}/${p.name}` === key);
}

/** A message a person can read: one line, bounded, no control characters, no slab of the file pasted in. */
function assertReadable(message: string): void {
  assert.ok(message.length > 0 && message.length <= 600, `message of ${message.length} characters: ${message.slice(0, 200)}`);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(message, /[\u0000-\u0008\u000b-\u001f\u007f]/, `control characters in ${JSON.stringify(message.slice(0, 200))}`);
  assert.doesNotMatch(message, /(.)\1{200}/, 'a run of 200 identical characters: file content pasted into the message');
}

describe('hostile manifests', () => {
  assert.ok(manifestCases.length >= 55, `${manifestCases.length} manifest cases`);
  for (const testCase of manifestCases) {
    it(testCase.name, () => {
      const { state, plans } = readAndPlan(testCase.files);
      const paths = new Set([...Object.keys(testCase.files), ...Object.keys(goodFile)]);
      for (const error of state.errors) {
        assert.ok(paths.has(error.path), `error located in a file that does not exist: ${error.path}`);
        assert.ok(error.line >= 1 && error.column >= 1, `unlocated error ${JSON.stringify(error)}`);
        assertReadable(error.message);
      }
      // The rest of the pass is intact: the good StatefulSet in its own file is planned as usual.
      const good = planOf(plans, 'db/good');
      assert.equal(good?.templates[0]?.action, 'resize', `db/good not planned: ${JSON.stringify(state.errors.slice(0, 3))}`);
      assert.ok(state.errors.every((e) => e.path !== 'k8s/good.yaml'), 'an error was put on the good file');

      const expect = testCase.expect;
      if ('error' in expect) {
        const matching = state.errors.filter((e) => e.path === expect.file);
        assert.ok(matching.some((e) => expect.error.test(e.message)), `expected an error in ${expect.file} matching ${String(expect.error)}, got ${JSON.stringify(state.errors.map((e) => `${e.path}:${e.line}: ${e.message.slice(0, 160)}`))}`);
        if (matching.some((e) => e.message.includes('db/pg'))) {
          // A StatefulSet with an error is never half-acted on.
          assert.ok(!planOf(plans, 'db/pg')?.templates.some((t) => t.action === 'resize'), 'db/pg planned despite its error');
        }
      } else if ('nothing' in expect) {
        assert.deepEqual(state.errors, []);
        assert.deepEqual(plans.map((p) => `${p.namespace}/${p.name}`), ['db/good']);
      } else {
        assert.deepEqual(state.errors, [], `unexpected errors: ${JSON.stringify(state.errors.map((e) => e.message.slice(0, 160)))}`);
        if (expect.plan === 'resize' || expect.plan === 'blocked' || expect.plan === 'unchanged') {
          const template = planOf(plans, 'db/pg')?.templates[0];
          assert.ok(template, 'db/pg was not planned');
          if (expect.plan === 'unchanged') {
            assert.equal(template.action, 'unchanged', `db/pg: ${JSON.stringify(template.reasons)}`);
          } else if (expect.plan === 'resize') {
            assert.equal(template.action, 'resize', `db/pg: ${JSON.stringify(template.reasons)}`);
            assert.equal(template.to.bytes, parseQuantity(expect.to).bytes, `planned ${template.to.text}`);
          } else {
            assert.equal(template.action, 'blocked');
            assert.ok(template.reasons.some((r) => expect.reason.test(r.message)), JSON.stringify(template.reasons));
            for (const reason of template.reasons) assertReadable(reason.message);
          }
        } else {
          assert.equal(planOf(plans, expect.set)?.outcome, expect.plan);
        }
      }
    });
  }
});
