// `npm run bench`: how long passes take and how many API calls they make, on the sandboxes with the real clients.
// Numbers are printed, never asserted: speed is measured here, not in tests.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createGitHubClient } from '../functions/adapters/github/octokit.ts';
import { GitHubSource } from '../functions/adapters/github/github-source.ts';
import { KubeCluster } from '../functions/adapters/kube/kube-cluster.ts';
import { DirectorySource } from '../functions/adapters/local/directory-source.ts';
import { runPass, type PassReport } from '../functions/engine/run-pass.ts';
import { startGitHubSandbox } from '../sandbox/github/index.ts';
import { startKubeSandbox } from '../sandbox/kube/index.ts';
import { benchLambdaBundle } from './lambda-bundle.ts';

const namespaces = ['team-a', 'team-b'];
const setsPerNamespace = Number(process.env.BENCH_SETS ?? 15);
const replicas = Number(process.env.BENCH_REPLICAS ?? 3);

function manifest(namespace: string, name: string, storage: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace },
    spec: {
      replicas, serviceName: name, podManagementPolicy: 'Parallel', selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } }],
    },
  };
}

function table(rows: Array<[string, string | number]>): void {
  for (const [label, value] of rows) process.stdout.write(`  ${label.padEnd(44)} ${value}\n`);
}

async function main(): Promise<void> {
  const sets = namespaces.flatMap((ns) => Array.from({ length: setsPerNamespace }, (_, i) => ({ ns, name: `db-${i}` })));
  const started = performance.now();
  const kube = await startKubeSandbox({
    seed: {
      namespaces, storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
      statefulSets: sets.map((s) => manifest(s.ns, s.name, '10Gi')),
    },
  });
  process.stdout.write(`sandbox with ${sets.length} StatefulSets x ${replicas} replicas seeded in ${(performance.now() - started).toFixed(0)} ms\n\n`);
  const repo = await mkdtemp(join(tmpdir(), 'sts-bench-'));
  const write = async (storage: string): Promise<void> => {
    for (const s of sets) {
      await mkdir(join(repo, s.ns), { recursive: true });
      await writeFile(join(repo, s.ns, `${s.name}.yaml`), JSON.stringify(manifest(s.ns, s.name, storage)));
    }
  };
  const cluster = new KubeCluster(kube.kubeConfig());
  const git = new DirectorySource(repo, ['**/*.yaml']);
  const target = { name: 'bench', globs: ['**/*.yaml'], defaultNamespace: 'default', allowedNamespaces: namespaces };
  const timing = { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() };
  const pass = async (): Promise<{ report: PassReport; ms: number }> => {
    const t0 = performance.now();
    const report = await runPass({ target, git, cluster, mode: 'apply', holderIdentity: 'bench', timing });
    return { report, ms: performance.now() - t0 };
  };

  await write('10Gi');
  await pass();
  kube.requestLog.reset();
  const converged: number[] = [];
  for (let i = 0; i < 5; i++) converged.push((await pass()).ms);
  process.stdout.write('Converged cluster (read path only):\n');
  table([
    ['pass time, median of 5 (ms)', converged.sort((a, b) => a - b)[2]?.toFixed(1) ?? '?'],
    ['API calls per pass', kube.requestLog.entries.length / 5],
    ['writes per pass', kube.requestLog.writes().length / 5],
  ]);

  await write('20Gi');
  kube.requestLog.reset();
  let passes = 0;
  const t0 = performance.now();
  for (; passes < 30; passes++) {
    const { report } = await pass();
    if (report.statefulSets.every((s) => s.outcome === 'converged')) break;
    kube.tick(2);
  }
  const counts = kube.requestLog.countsByVerbAndResource();
  process.stdout.write(`\nGrow every set 10Gi -> 20Gi (${sets.length * replicas} PVCs):\n`);
  table([
    ['passes until converged', passes + 1],
    ['total time incl. sandbox ticks (ms)', (performance.now() - t0).toFixed(0)],
    ['API calls in all', kube.requestLog.entries.length],
    ['writes in all', kube.requestLog.writes().length],
    ['PVC patches (real)', counts['patch persistentvolumeclaims'] ?? 0],
    ['PVC patches (dry run)', counts['patch persistentvolumeclaims (dryRun)'] ?? 0],
    ['StatefulSet deletes / creates', `${counts['delete statefulsets'] ?? 0} / ${counts['create statefulsets'] ?? 0}`],
  ]);
  await kube.close();

  const github = await startGitHubSandbox({ seedDir: fileURLToPath(new URL('../examples/gitops-repo', import.meta.url)) });
  const octokit = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.token } });
  const source = new GitHubSource(octokit, { owner: github.owner, repo: github.repo }, 'main', ['k8s/**/*.yaml']);
  github.requestLog.reset();
  let t1 = performance.now();
  await source.readBranchHead();
  const cold = { ms: performance.now() - t1, calls: github.requestLog.entries.length };
  github.requestLog.reset();
  t1 = performance.now();
  await source.readBranchHead();
  const warm = { ms: performance.now() - t1, calls: github.requestLog.entries.length };
  process.stdout.write('\nDesired state from GitHub (examples/gitops-repo):\n');
  table([
    ['first read: ms / API calls', `${cold.ms.toFixed(1)} / ${cold.calls}`],
    ['next read (blobs cached by SHA): ms / API calls', `${warm.ms.toFixed(1)} / ${warm.calls}`],
  ]);
  await github.close();

  await benchLambdaBundle(table);
}

await main();
