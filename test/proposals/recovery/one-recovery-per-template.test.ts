// Issue 35 item 3: two failures in a row give one recovery pull request per template, updated in place (same number),
// never closed and opened again; the progress comments link it while it is open. Both sandboxes, the real clients.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TargetRun } from '../../../functions/app/run-targets.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../../sandbox/kube/index.ts';
import { startCappedWarehouse, type CappedWarehouse } from '../../support/capped-warehouse.ts';
import { applyPass, commentBodies } from '../../support/passes.ts';

const branch = 'sts-volume-gitops/recover/demo/analytics/wh/data';

describe('one recovery pull request per template, over two failures in a row', () => {
  let world: CappedWarehouse;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  /** Every pass's recovery outcomes for the template, in order. */
  const actions: string[] = [];
  const pass = async (): Promise<TargetRun> => {
    const run = await applyPass(config, world.env);
    actions.push(...(run.recovery?.outcomes ?? []).filter((o) => o.key === 'analytics/wh/data').map((o) => o.action));
    kube.tick(2);
    return run;
  };
  const recoveryPulls = () => github.state.pulls.filter((p) => p.head === branch);

  /** A person's pull request changing the size, merged as on github.com. */
  async function mergeSize(storage: string): Promise<number> {
    await github.commitFiles({ branch: `grow-${storage}`, message: `Grow wh to ${storage}`, files: { 'k8s/wh.yaml': world.manifest(storage) } });
    const number = await github.openPullRequest({ head: `grow-${storage}`, title: `Grow wh to ${storage}` });
    await github.mergePullRequest(number);
    return number;
  }

  before(async () => {
    world = await startCappedWarehouse({ replicas: 2, tokenEnv: 'ONE_RECOVERY_TOKEN', storageComment: 'sized by the platform team' });
    ({ kube, github } = world);
    config = parseConfig(world.configText, 'c.yaml', world.dir);
  });
  after(() => world.close());

  let first: number;
  let grownTo100: number;

  it('opens the recovery pull request after the first failure (100Gi), linked from its progress comment', async () => {
    grownTo100 = await mergeSize('100Gi');
    for (let i = 0; i < 10 && !actions.includes('opened'); i++) await pass();
    const [pull] = recoveryPulls();
    assert.ok(pull, actions.join(', '));
    assert.equal(pull.title, 'Recover analytics/wh data: 100Gi → 50Gi (expansion failed)');
    first = pull.number;
    await pass(); // the progress comment follows the recovery in the same pass; one more settles it
    const progress = commentBodies(github, grownTo100).find((b) => b.includes('failed for good'));
    assert.match(progress ?? '', new RegExp(`A recovery pull request proposes a size that can succeed: \\S+/pull/${pull.number}\\b`));
  });

  it('after a second failure (80Gi), updates the same pull request in place: its title, body and branch show the new proposal', async () => {
    const grownTo80 = await mergeSize('80Gi');
    const before = actions.length;
    for (let i = 0; i < 10 && !actions.slice(before).includes('updated'); i++) await pass();
    await pass();
    assert.deepEqual(recoveryPulls().map((p) => [p.number, p.state]), [[first, 'open']], `actions since the second merge: ${actions.slice(before).join(', ')}`);
    assert.ok(!actions.slice(before).includes('closed') && !actions.slice(before).includes('opened'), actions.slice(before).join(', '));
    const [pull] = recoveryPulls();
    assert.equal(pull?.title, 'Recover analytics/wh data: 80Gi → 50Gi (expansion failed)');
    assert.match(pull?.body ?? '', /## The expansion of analytics\/wh `data` to 80Gi failed for good/);
    const head = await github.readFile('main', 'k8s/wh.yaml');
    const proposed = await github.readFile(branch, 'k8s/wh.yaml');
    assert.equal(proposed, head?.replace('storage: 80Gi  # sized', 'storage: 50Gi  # sized'), 'the branch is the new head with the one line changed');
    // Both failures' progress comments point at the open pull request as the way forward, never at a closed one.
    for (const merged of [grownTo100, grownTo80]) {
      const progress = commentBodies(github, merged).find((b) => b.includes('failed for good') || b.includes('recovery pull request'));
      assert.match(progress ?? '', new RegExp(`A recovery pull request proposes a size that can succeed: \\S+/pull/${first}\\b`), `#${merged}`);
    }
    assert.match(commentBodies(github, grownTo80).find((b) => b.includes('failed for good')) ?? '', /the resize to 80Gi failed for good/);
  });
});
