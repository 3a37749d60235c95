// A live template grown outside Git alone (its PVCs at Git's size), end to end on both sandboxes with the real Octokit
// and client-node over HTTP (issue 36 item 3): the pass proposes the live size back into Git and holds the template
// (not recreated at Git's smaller size, the set waiting, not failed) until a person merges the write-back (then all is
// clean) or closes it unmerged (Git wins: the next pass applies Git's size as before).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppsV1Api } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { runTargets, type TargetRun } from '../../../functions/app/run-targets.ts';
import { renderPassReport } from '../../../functions/cli/render-report.ts';
import type { Config } from '../../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { pgManifest, startOneSetSandboxes, type OneSetSandboxes } from '../../support/one-set-sandboxes.ts';
import { noWaiting, passUntil } from '../../support/passes.ts';

const stsType = mustResourceType('apps/v1', 'StatefulSet');
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('a live template grown outside Git, held for its write-back', () => {
  let world: OneSetSandboxes;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  let env: Record<string, string>;
  const pass = (): Promise<TargetRun> => world.pass();
  const liveTemplateSize = (): unknown => {
    const spec = kube.store.get(stsType, 'db', 'pg')?.spec as { volumeClaimTemplates?: Array<{ spec?: { resources?: { requests?: { storage?: unknown } } } }> } | undefined;
    return spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
  };
  const openWriteBack = (): { number: number; head: string; title: string } | undefined =>
    github.state.pulls.find((p) => p.state === 'open' && p.head === 'sts-volume-gitops/write-back/demo/db/pg/data');
  /** GitHub listings of the write-back branch's pull requests since the log's last reset. */
  const writeBackListings = (): number => github.requestLog.entries
    .filter((e) => e.operation === 'pulls.list' && new URLSearchParams(e.query).get('head') === 'acme:sts-volume-gitops/write-back/demo/db/pg/data').length;
  const statefulSetWrites = (): string[] => kube.requestLog.writes().filter((w) => w.resource === 'statefulsets' && w.verb !== 'patch').map((w) => `${w.verb} ${w.name ?? ''}`);

  /** A person recreates the set with a larger template (orphan delete, create), leaving its PVCs as they are. */
  async function recreateLarger(storage: string): Promise<void> {
    const apps = kube.kubeConfig().makeApiClient(AppsV1Api);
    await apps.deleteNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { propagationPolicy: 'Orphan' } });
    for (let i = 0; i < 10 && kube.store.get(stsType, 'db', 'pg'); i++) kube.tick(1);
    const body = load(pgManifest(storage)) as Parameters<AppsV1Api['createNamespacedStatefulSet']>[0]['body'];
    await apps.createNamespacedStatefulSet({ namespace: 'db', body });
    kube.tick(2);
  }

  before(async () => {
    world = await startOneSetSandboxes('10Gi');
    ({ kube, github, config, env } = world);
  });
  after(async () => { await world.close(); });

  it('holds the template grown by hand: not recreated at Git\'s size, the set waiting (not failed), the write-back opened; plan says so with its link', async () => {
    await recreateLarger('20Gi');
    kube.requestLog.reset();
    github.requestLog.reset();
    const run = await pass();
    assert.equal(liveTemplateSize(), '20Gi', 'the live template is not shrunk back to Git\'s 10Gi');
    assert.deepEqual(statefulSetWrites(), [], 'the set is not deleted or recreated');
    const sts = run.report?.statefulSets.find((s) => s.name === 'pg');
    assert.equal(sts?.outcome, 'waiting');
    assert.equal(sts?.templates[0]?.heldForWriteBack, '20Gi');
    assert.equal(sts?.templates[0]?.action, 'unchanged');
    assert.equal(run.error, undefined);
    const pr = openWriteBack();
    assert.ok(pr, JSON.stringify(run.writeBack?.outcomes));
    assert.match(pr.title, /10Gi → 20Gi/);
    assert.equal(writeBackListings(), 1, 'the branch the holds listed is not listed again by the write-back step');
    const [plan] = await runTargets(config, { mode: 'plan', holderIdentity: 'test', env, timing: noWaiting });
    assert.ok(plan?.report);
    const url = plan.writeBack?.links.get('db/pg/data');
    assert.ok(url?.endsWith(`/pull/${pr.number}`) === true && url !== undefined, url);
    assert.match(renderPassReport(plan.report, { proposals: plan.writeBack?.outcomes ?? [] }),
      new RegExp(`held: the live template asks for 20Gi, more than Git's 10Gi: held, not shrunk back, while write-back pull request ${escape(url)} proposes it`));
    // The next pass holds it again, writing nothing new to GitHub.
    kube.requestLog.reset();
    github.requestLog.reset();
    const again = await pass();
    assert.equal(again.writeBack?.outcomes.find((o) => o.key === 'db/pg/data')?.action, 'unchanged');
    assert.equal(writeBackListings(), 1);
    assert.deepEqual(statefulSetWrites(), []);
    assert.equal(liveTemplateSize(), '20Gi');
  });

  it('merged: Git says the live size, the set converges and the next pass writes nothing', async () => {
    const pr = openWriteBack();
    assert.ok(pr);
    await github.mergePullRequest(pr.number);
    await passUntil(pass, kube, (run) => run.report?.statefulSets[0]?.outcome === 'converged');
    assert.equal(liveTemplateSize(), '20Gi');
    kube.requestLog.reset();
    const clean = await pass();
    assert.equal(clean.report?.writeBack, undefined);
    assert.deepEqual(kube.requestLog.writes().map((w) => `${w.verb} ${w.resource} ${w.name ?? ''}`), []);
  });

  it('closed unmerged by a person: Git wins, and the next pass applies Git\'s size to the template as before', async () => {
    await recreateLarger('30Gi');
    await pass();
    assert.equal(liveTemplateSize(), '30Gi', 'held while the write-back is open');
    const pr = openWriteBack();
    assert.ok(pr);
    assert.match(pr.title, /20Gi → 30Gi/);
    const stored = github.state.pulls.find((p) => p.number === pr.number);
    assert.ok(stored);
    stored.state = 'closed';
    stored.closedAt = new Date().toISOString();
    const run = await passUntil(pass, kube, (r) => r.report?.statefulSets[0]?.outcome === 'converged');
    assert.equal(liveTemplateSize(), '20Gi', 'the template is back at Git\'s size');
    assert.equal(run.report?.statefulSets[0]?.templates[0]?.heldForWriteBack, undefined);
    assert.equal(openWriteBack(), undefined, 'not proposed again');
  });
});
