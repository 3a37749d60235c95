// One time budget per invocation, enforced at the clients: every Kubernetes and GitHub request has a timeout that
// shrinks with the time left, and a rate-limit wait that would outlast the invocation is not taken.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import { instrumentedKubeConfig } from '../../functions/adapters/kube/instrumented-kube-config.ts';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { canWait, hasTimeFor, requestTimeoutMs } from '../../functions/app/deadline.ts';
import { ClusterError } from '../../functions/engine/ports.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));

describe('the invocation budget', () => {
  it('gives a request up to 30 s, never past the end less 5 s for closing, and at least 1 s', () => {
    assert.equal(requestTimeoutMs(undefined), 30_000);
    assert.equal(requestTimeoutMs(() => 300_000), 30_000);
    assert.equal(requestTimeoutMs(() => 12_000), 7_000);
    assert.equal(requestTimeoutMs(() => 2_000), 1_000);
    assert.equal(canWait(() => 300_000, 60_000), true);
    assert.equal(canWait(() => 60_000, 60_000), false);
    assert.equal(hasTimeFor(() => 26_000), true);
    assert.equal(hasTimeFor(() => 24_000), false);
  });
});

describe('request deadlines against the sandboxes', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  before(async () => {
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo') });
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('aborts a Kubernetes request that outlasts its timeout, as a transient cluster error', async () => {
    kube.faults.add({ method: 'GET', resource: 'leases', latencyMs: 2_000 });
    try {
      const cluster = new KubeCluster(instrumentedKubeConfig(kube.kubeConfig(), { timeoutMs: () => 200 }));
      await assert.rejects(cluster.readLease('default', 'slow'), (error: unknown) => error instanceof ClusterError && error.status === undefined);
      const patient = new KubeCluster(instrumentedKubeConfig(kube.kubeConfig(), { timeoutMs: () => 10_000 }));
      assert.equal(await patient.readLease('default', 'slow'), undefined);
    } finally {
      kube.faults.clear();
    }
  });

  it('aborts a GitHub request that outlasts its timeout', async () => {
    github.faults.add({ method: 'GET', resource: 'repos.get', latencyMs: 2_000 });
    try {
      const client = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.token }, requestTimeoutMs: () => 200 });
      await assert.rejects(client.request('GET /repos/{owner}/{repo}', { owner: github.owner, repo: github.repo, request: { retries: 0 } }), /abort|timeout/i);
    } finally {
      github.faults.clear();
    }
  });

  it('does not wait out a secondary rate limit when the wait would pass the invocation\'s end', async () => {
    const warnings: string[] = [];
    const client = createGitHubClient({
      baseUrl: github.url, auth: { kind: 'token', token: github.token },
      canWait: (waitMs) => canWait(() => 20_000, waitMs), log: { warn: (m) => warnings.push(m) },
    });
    github.faults.failNext('GET', 'repos.get', 1, 429);
    github.requestLog.reset();
    await assert.rejects(client.rest.repos.get({ owner: github.owner, repo: github.repo }), (e: { status?: number }) => e.status === 429);
    assert.equal(github.requestLog.countsByOperation()['repos.get'], 1, 'not retried');
    assert.match(warnings.join('\n'), /not waiting 1s, past this invocation's time/);
    // With time to spare, the same limit is waited out once (by plugin-throttling alone).
    const patient = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.token }, canWait: (waitMs) => canWait(() => 300_000, waitMs) });
    github.faults.failNext('GET', 'repos.get', 1, 429);
    github.requestLog.reset();
    assert.equal((await patient.rest.repos.get({ owner: github.owner, repo: github.repo })).status, 200);
    assert.equal(github.requestLog.countsByOperation()['repos.get'], 2);
  });
});
