// Usage before merge (issue 36 item 4), end to end over the real Octokit and client-node against both sandboxes: every
// size change's check and plan comment shows each replica's usage now and at the new size; the validation run reads
// usage once (five queries) for the namespaces of all its pull requests; Prometheus unreachable is one line in each
// check, and the verdicts are those of a run without usage.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runTargets } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv, sandboxRecordKeyVariable } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { commentBodies, noWaiting, statusesOf } from '../support/passes.ts';
import { startUsageCluster, usageClock as clock } from '../support/usage-cluster.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';
import { closedPort } from '../support/closed-port.ts';

const context = 'sts-volume-gitops/validate (demo)';

const manifests = {
  'k8s/pg.yaml': statefulSetManifest({ name: 'pg', storage: '10Gi', replicas: 3 }),
  'k8s/redis.yaml': statefulSetManifest({ name: 'redis', namespace: 'cache', storage: '5Gi', replicas: 2 }),
};


describe('usage before merge', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  const env: Record<string, string> = { ...sandboxRecordKeyEnv() };
  const heads: Record<string, { sha: string; pr: number }> = {};

  before(async () => {
    ({ dir, kube } = await startUsageCluster('usage-before-merge', manifests, [
      { namespace: 'db', claim: 'data-pg-0', used: '8.5Gi' },
      { namespace: 'db', claim: 'data-pg-1', used: '4Gi' },
      { namespace: 'cache', claim: 'data-redis-0', used: '1Gi' },
    ]));
    kube.tick(4);
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    env.USAGE_TOKEN = github.token;
    const open = async (name: string, path: string, text: string): Promise<void> => {
      const sha = await github.commitFiles({ branch: name, message: name, files: { [path]: text } });
      heads[name] = { sha, pr: await github.openPullRequest({ head: name, title: name }) };
    };
    await open('grow-pg', 'k8s/pg.yaml', statefulSetManifest({ name: 'pg', storage: '20Gi', replicas: 3 }));
    await open('grow-redis', 'k8s/redis.yaml', statefulSetManifest({ name: 'redis', namespace: 'cache', storage: '8Gi', replicas: 2 }));
  });
  after(async () => {
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  const config = (prometheusUrl?: string): Config => parseConfig(
    sandboxConfig(kube.kubeconfigPath, github.url, 'USAGE_TOKEN', [], { recordKey: { env: sandboxRecordKeyVariable }, stateNamespace: 'default', ...(prometheusUrl ? { prometheusUrl } : {}) }),
    'usage.yaml', dir,
  );
  const validate = async (chosen: Config): Promise<void> => {
    const [run] = await runTargets(chosen, { mode: 'validate', holderIdentity: 'test', env, timing: noWaiting, now: () => clock });
    assert.equal(run?.error, undefined, run?.error);
  };
  /** The comment's latest text as GitHub shows it: without the escapes that keep it literal (a `\\(`, a zero-width space). */
  const latestComment = (pr: number): string => (commentBodies(github, pr).at(-1) ?? assert.fail(`no comment on #${pr}`)).replace(/\\([()])/g, '$1').replaceAll('&#8203;', '');

  it("shows each replica now and at the new size in the plan comment (a check run's summary is the same text), from one read for every pull request", async () => {
    const asked = kube.prometheus.queries.length;
    await validate(config(kube.prometheus.url));
    assert.equal(kube.prometheus.queries.length - asked, 5, 'one read (five queries) for two pull requests in two namespaces');
    assert.match(kube.prometheus.queries.slice(asked).join('\n'), /namespace=~"cache\|db"/);
    const pg = latestComment(heads['grow-pg']?.pr ?? 0);
    assert.match(pg, /\n {2}- data-pg-0: 8\.5Gi of 10Gi used \(85%\) → 43% at 20Gi\n/);
    assert.match(pg, /\n {2}- data-pg-1: 4Gi of 10Gi used \(40%\) → 20% at 20Gi\n/);
    assert.match(pg, /\n {2}- data-pg-2: 0Gi of 10Gi used \(0%\) → 0% at 20Gi\n/);
    const redis = latestComment(heads['grow-redis']?.pr ?? 0);
    assert.match(redis, /\n {2}- data-redis-0: 1Gi of 5Gi used \(20%\) → 13% at 8Gi\n/);
    assert.doesNotMatch(redis, /data-pg-/, 'a check shows the replicas of its own change');
    assert.deepEqual(statusesOf(github, heads['grow-pg']?.sha ?? '', context).at(-1), { state: 'success', description: 'db/pg: 3 PVCs grow 10Gi → 20Gi' });
  });

  it('Prometheus unreachable: one line in each check, and the verdicts of a run without usage', async () => {
    await validate(config());
    const without = Object.fromEntries(Object.values(heads).map(({ sha }) => [sha, statusesOf(github, sha, context).at(-1)]));
    assert.doesNotMatch(latestComment(heads['grow-pg']?.pr ?? 0), /usage/i, 'no usage configured: nothing said of it');
    const closed = await closedPort();
    await validate(config(`http://127.0.0.1:${closed}`));
    for (const { sha, pr } of Object.values(heads)) {
      assert.deepEqual(statusesOf(github, sha, context).at(-1), without[sha]);
      assert.match(latestComment(pr), new RegExp(`\\n- ⚠️ usage could not be read from http://127\\.0\\.0\\.1:${closed}: connection refused by 127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\): nothing listens there; the verdict does not depend on it\\n`));
    }
  });
});
