// What a stranger's fork learns under `forks: validate` (issue 34 item 5): nothing of the cluster. Sizes probing below
// the volumes' capacity, above it, past the growth limit, and a StatefulSet the cluster does not have get one and the
// same check (conclusion, title, summary, annotations) and no comment; what Git alone decides is told: a manifest
// error at its line, and a change that leaves every size and class as the branch has them passes. GitHub App auth
// (check runs), both sandboxes, the real Octokit and client-node, runTargets.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { runTargets } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { validateContext } from '../../functions/feedback/check-names.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { noWaiting } from '../support/passes.ts';
import { pgManifest, startOneSetWorld } from './one-set-world.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

const context = validateContext('demo');

describe('a fork\'s pull request learns nothing of the cluster (forks: validate)', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let app: GitHubClient;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const repo = { owner: 'acme', repo: 'platform-gitops' };
  const heads = new Map<string, { sha: string; number: number }>();

  /** Everything the fork's author can read of the verdict on `sha`: the check run, its annotations, the statuses, the comments. */
  async function seenBy(name: string): Promise<unknown> {
    const head = heads.get(name);
    assert.ok(head);
    const runs = await app.rest.checks.listForRef({ ...repo, ref: head.sha, check_name: context });
    const [latest] = runs.data.check_runs;
    assert.ok(latest, `no check run on ${name}`);
    const annotations = await app.rest.checks.listAnnotations({ ...repo, check_run_id: latest.id });
    return {
      conclusion: latest.conclusion, title: latest.output.title, summary: latest.output.summary, detailsUrl: latest.details_url,
      annotations: annotations.data.map((a) => [a.path, a.start_line, a.annotation_level, a.title, a.message]),
      statuses: github.state.statuses.filter((s) => s.sha === head.sha).map((s) => [s.context, s.state, s.description]),
      comments: github.state.comments.filter((c) => c.issue === head.number).map((c) => c.body),
    };
  }

  before(async () => {
    ({ dir, kube, github } = await startOneSetWorld('sts-fork-verdicts-'));
    const text = withSandboxApp(sandboxConfig(kube.kubeconfigPath, github.url, 'UNUSED').replace('allow: [db, cache, analytics]', 'allow: [db]'), github, 'FORK_APP_KEY')
      .replace('pullRequests: { validate: true, recovery: true }', 'pullRequests: { validate: true, recovery: true, forks: validate }');
    assert.match(text, /forks: validate/);
    env.FORK_APP_KEY = github.app.privateKeyPem;
    config = parseConfig(text, 'forks.yaml', dir);
    app = createGitHubClient({ baseUrl: github.url, auth: { kind: 'app', appId: github.app.appId, installationId: github.app.installationId, privateKey: github.app.privateKeyPem }, spaceWrites: false });
    await github.forkRepository('mallory');
    const ghost = pgManifest('20Gi').replace('name: pg', 'name: ghost').replace(/app: pg/g, 'app: ghost').replace('serviceName: pg', 'serviceName: ghost');
    const probes: Record<string, Record<string, string>> = {
      // db/pg's one volume has 10Gi: below it, above it, past the growth limit (10x), and a set the cluster lacks.
      below: { 'k8s/pg.yaml': pgManifest('5Gi') },
      above: { 'k8s/pg.yaml': pgManifest('20Gi') },
      huge: { 'k8s/pg.yaml': pgManifest('2Ti') },
      ghost: { 'k8s/ghost.yaml': ghost },
      // What Git alone decides.
      image: { 'k8s/pg.yaml': pgManifest('10Gi').replace('busybox:1.36', 'busybox:1.37') },
      broken: { 'k8s/pg.yaml': pgManifest('twenty') },
    };
    for (const [name, files] of Object.entries(probes)) {
      const sha = await github.commitFiles({ fork: 'mallory', branch: name, message: name, files });
      heads.set(name, { sha, number: await github.openPullRequest({ head: `mallory:${name}`, title: name, author: 'mallory' }) });
    }
    kube.requestLog.reset();
    const [run] = await runTargets(config, { mode: 'validate', holderIdentity: 'test', env, timing: noWaiting });
    assert.equal(run?.error, undefined, run?.error);
  });
  after(async () => {
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives sizes below and above the capacity, past the growth limit and a missing StatefulSet one indistinguishable verdict, never a pass', async () => {
    const below = await seenBy('below');
    for (const probe of ['above', 'huge', 'ghost']) assert.deepEqual(await seenBy(probe), below, `${probe} reads as below does`);
    const seen = below as { conclusion: string; title: string; summary: string; comments: string[] };
    assert.notEqual(seen.conclusion, 'success', 'a change the cluster decides is never passed for a fork');
    assert.match(seen.title, /a maintainer's pull request or `npx sts-volume-gitops plan` tells/);
    assert.doesNotMatch(`${seen.title}\n${seen.summary}`, /10Gi|capacity|quota|data-pg|missing|growth|not found/i);
    assert.deepEqual(seen.comments, []);
  });

  it('plans no fork against the cluster: no dry run, so no answer time that depends on it either', () => {
    assert.equal(kube.requestLog.countsByVerbAndResource()['patch persistentvolumeclaims (dryRun)'], undefined);
    assert.equal(kube.requestLog.countsByVerbAndResource()['update statefulsets (dryRun)'], undefined);
  });

  it('tells what Git alone decides: a change that keeps every size and class passes, a manifest error fails at its line', async () => {
    const image = await seenBy('image') as { conclusion: string; title: string };
    assert.equal(image.conclusion, 'success');
    assert.match(image.title, /no volume changes/);
    const broken = await seenBy('broken') as { conclusion: string; annotations: Array<[string, number, string, string, string]>; comments: string[] };
    assert.equal(broken.conclusion, 'failure');
    assert.equal(broken.annotations[0]?.[0], 'k8s/pg.yaml');
    assert.match(broken.annotations[0]?.[4] ?? '', /twenty/);
    assert.deepEqual(broken.comments, []);
  });
});
