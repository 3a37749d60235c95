// Push -> verdict latency (issue 24): the time from a push to a pull request's branch until the check is on its head
// commit, through the signed webhook the GitHub sandbox delivers, the local webhook server (the Lambda's receiveWebhook
// and its one-at-a-time queue) and a validate pass (GitHub App auth: check runs). A 1,000-file repository, 50
// StatefulSets, 50 open pull requests, 10 ms latency on every request; then the same for merge queue entries (the
// queue branch's push and its merge_group delivery). Sandboxes and controller share this process: the figures include
// the sandboxes' own CPU. Selected alone with BENCH_ONLY=verdict; BENCH_VERDICT_SAMPLES sets the samples (30).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { startLocalWebhookServer } from '../functions/app/local-webhook-server.ts';
import { runTargets } from '../functions/app/run-targets.ts';
import { parseConfig } from '../functions/domain/config.ts';
import { validateContext } from '../functions/feedback/check-names.ts';
import { startGitHubSandbox } from '../sandbox/github/index.ts';
import { startKubeSandbox } from '../sandbox/kube/index.ts';
import { kubeSeed, namespaceName, setNames, statefulSetManifest, type WorldSize } from './worlds.ts';

export interface LatencyFigures {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface VerdictFigures {
  pullRequest: LatencyFigures;
  mergeGroup: LatencyFigures;
  repositoryFiles: number;
  openPullRequests: number;
}

const size: WorldSize = { sets: 50, namespaces: 5, replicas: 1 };
const repositoryFiles = 1_000;
const secret = 'bench-webhook-secret';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function figures(latencies: number[]): LatencyFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { samples: sorted.length, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95), maxMs: sorted.at(-1) ?? Number.NaN };
}

export async function benchVerdict(log: (line: string) => void): Promise<VerdictFigures> {
  const samples = Number(process.env.BENCH_VERDICT_SAMPLES ?? 30);
  const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 10);
  const dir = await mkdtemp(join(tmpdir(), 'sts-bench-verdict-'));
  const sets = setNames(size);
  const manifest = (index: number, data: string): string => stringify(statefulSetManifest(sets[index] ?? { namespace: 'x', name: 'x' }, size.replicas, { data, logs: '1Gi' }));
  const pathOf = (index: number): string => `k8s/${sets[index]?.namespace ?? ''}/${sets[index]?.name ?? ''}.yaml`;
  const files: Record<string, string> = {};
  sets.forEach((_, i) => { files[pathOf(i)] = manifest(i, '10Gi'); });
  for (let i = Object.keys(files).length; i < repositoryFiles; i++) files[`docs/page-${String(i).padStart(4, '0')}.md`] = `# Page ${i}\n\nNot a manifest.\n`;
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, 'repo', path)), { recursive: true });
    await writeFile(join(dir, 'repo', path), text);
  }
  const kube = await startKubeSandbox({ seed: kubeSeed(size, { data: '10Gi', logs: '1Gi' }), workDir: join(dir, 'kube') });
  kube.tick(5);
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const namespaces = Array.from({ length: size.namespaces }, (_, i) => namespaceName(i));
  const config = parseConfig(`targets:
  - name: bench
    source:
      github:
        owner: ${github.owner}
        repo: ${github.repo}
        branch: main
        paths: ["k8s/**/*.yaml"]
        apiUrl: ${github.url}
        app: { appId: ${github.app.appId}, installationId: ${github.app.installationId}, privateKey: { env: BENCH_APP_KEY } }
    cluster:
      kubeconfig: { path: ${JSON.stringify(kube.kubeconfigPath)} }
    namespaces: { default: ${namespaces[0] ?? 'default'}, allow: [${namespaces.join(', ')}] }
    pullRequests: { validate: true, recovery: false }
`, 'bench.yaml', dir);
  const env = { BENCH_APP_KEY: github.app.privateKeyPem };
  const timing = { maxWaitMs: 0, pollIntervalMs: 0, sleep: (): Promise<void> => Promise.resolve() };
  const server = await startLocalWebhookServer({
    port: 0, config, secret, log: () => undefined,
    run: async (message) => {
      const [run] = await runTargets(config, {
        mode: message.action === 'validate' ? 'validate' : 'apply', targetName: message.target, holderIdentity: 'bench-verdict', env, timing,
        ...(message.mergeGroup ? { mergeGroup: message.mergeGroup } : {}), ...(message.pullRequest !== undefined ? { pullRequest: message.pullRequest } : {}),
      });
      if (run?.error !== undefined) log(`run failed: ${run.error}`);
    },
  });
  try {
    github.webhooks.subscribe({ url: server.url, secret });
    const context = validateContext('bench');
    const checked = async (sha: string): Promise<number> => {
      for (;;) {
        if (github.state.checkRuns.some((r) => r.headSha === sha && r.name === context && r.status === 'completed')) return performance.now();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    for (let i = 0; i < size.sets; i++) {
      await github.commitFiles({ branch: `pr-${i}`, message: `Grow ${sets[i]?.name ?? ''}`, files: { [pathOf(i)]: manifest(i, '20Gi') } });
      await github.openPullRequest({ head: `pr-${i}`, title: `Grow ${sets[i]?.name ?? ''}` });
    }
    await server.idle();
    log(`${repositoryFiles} files, ${size.sets} open pull requests checked; measuring ${samples} pushes, then ${samples} merge queue entries (${latencyMs} ms latency per request)`);
    if (latencyMs > 0) {
      kube.faults.add({ latencyMs });
      github.faults.add({ latencyMs });
    }
    const pullLatencies: number[] = [];
    for (let k = 0; k < samples; k++) {
      const i = k % size.sets;
      const t0 = performance.now();
      const head = await github.commitFiles({ branch: `pr-${i}`, message: `Grow ${sets[i]?.name ?? ''} again`, files: { [pathOf(i)]: manifest(i, `${21 + k}Gi`) } });
      pullLatencies.push(await checked(head) - t0);
      await server.idle();
    }
    const groupLatencies: number[] = [];
    for (let k = 0; k < samples; k++) {
      const i = k % size.sets;
      const base = await github.state.git.resolve('refs/heads/main') ?? '';
      const branch = `gh-readonly-queue/main/pr-${i + 1}-${base}`;
      const t0 = performance.now();
      // GitHub pushes the queue's branch (ignored: anyone may push there) and sends merge_group, which queues the check.
      const head = await github.commitFiles({ branch, baseBranch: 'main', message: `Merge pull request #${i + 1}`, files: { [pathOf(i)]: manifest(i, `${60 + k}Gi`) } });
      await github.webhooks.deliver('merge_group', {
        action: 'checks_requested', merge_group: { head_sha: head, head_ref: `refs/heads/${branch}`, base_sha: base, base_ref: 'refs/heads/main' },
        repository: { name: github.repo, full_name: `${github.owner}/${github.repo}`, owner: { login: github.owner } },
      });
      groupLatencies.push(await checked(head) - t0);
      await server.idle();
    }
    return { pullRequest: figures(pullLatencies), mergeGroup: figures(groupLatencies), repositoryFiles, openPullRequests: size.sets };
  } finally {
    await server.close();
    await github.close();
    await kube.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `node --import tsx bench/verdict.ts`: this scenario alone. */
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const result = await benchVerdict((line) => process.stdout.write(`  | ${line}\n`));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
