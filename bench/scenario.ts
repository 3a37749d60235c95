// One benchmark world in a process of its own (the controller), with the sandboxes in a child process
// (sandbox-host.ts): what this process spends in CPU and peak RSS is the controller's. Prints one JSON line per
// measured scenario, `RESULT {...}`, which run.ts gathers into tables. Usage: scenario.ts <sets> <namespaces>.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { KubeConfig } from '@kubernetes/client-node';
import { createGitHubClient } from '../functions/adapters/github/octokit.ts';
import { GitHubSource } from '../functions/adapters/github/github-source.ts';
import { KubeCluster } from '../functions/adapters/kube/kube-cluster.ts';
import { runPass, type PassReport } from '../functions/engine/run-pass.ts';
import { naiveRead, naiveReadCalls, naiveResizeCalls } from './naive-baseline.ts';
import { SandboxHost } from './sandbox-client.ts';
import type { HostLogs } from './sandbox-host.ts';
import { kubeSeed, manifestFiles, MemorySource, namespaceName, type WorldSize } from './worlds.ts';
import { RecordKey } from '../functions/engine/records/authenticity.ts';
import { prometheusAuthorizer } from '../functions/usage/prometheus-auth.ts';
import { sizeProposalStep } from '../functions/usage/size-proposals.ts';
import type { PlannedPass, SetsBeforeCluster, SizeProposalStep } from '../functions/engine/pass-context.ts';

export interface ScenarioResult {
  world: string;
  scenario: string;
  wallMs: number;
  cpuMs: number;
  peakRssMiB: number;
  kubeCalls: number;
  kubeWrites: number;
  githubCalls: number;
  floor: number | undefined;
  naive: { calls: number; wallMs: number | undefined } | undefined;
  counts: Record<string, number>;
  notes: string[];
  /** The usage scenario's figures: Prometheus queries per pass, and the pass's wall and CPU beside the same pass without usage. */
  usage?: { queriesPerPass: number; wallOverheadPercent: number; cpuOverheadPercent: number; stepAlone: { wallMs: number; cpuMs: number; writeBackCpuMs: number; usageCpuMs: number; cpuPercentOfPass: number } };
}

const size: WorldSize = { sets: Number(process.argv[2] ?? 50), namespaces: Number(process.argv[3] ?? 20), replicas: 3 };
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 10);
const resizeBudgetMs = Number(process.env.BENCH_RESIZE_BUDGET_S ?? 600) * 1000;
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const world = `${size.sets} sets x ${size.namespaces} ns`;
const concurrency = 4;

function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

function emit(result: ScenarioResult): void {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

/**
 * Reads of one pass at the floor: the Lease, StorageClasses, the server's /version, the state namespace's ConfigMaps
 * (every pass lists the recreation records there, so one planted after a clean pass is reported on the next), and
 * StatefulSets, PVCs, pods and quotas per namespace.
 */
function readFloor(): number {
  return 4 + 4 * size.namespaces;
}

async function main(): Promise<void> {
  const host = new SandboxHost();
  process.stdout.write(`controller process RSS before any work (client-node, Octokit loaded): ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB\n`);
  try {
    // `cluster` leaves out every Kubernetes scenario (the first read from GitHub alone, in seconds).
    if (!skip.has('cluster')) await clusterScenarios(host);
    if (!skip.has('github')) await githubScenario(host);
  } finally {
    await host.close();
  }
}

async function clusterScenarios(host: SandboxHost): Promise<void> {
  const before = { data: '10Gi', logs: '1Gi' };
  const seeding = performance.now();
  const { kubeconfigPath, prometheusUrl } = await host.startKube(kubeSeed(size, before), latencyMs);
  process.stdout.write(`Kubernetes sandbox seeded and settled in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const cluster = new KubeCluster(config, concurrency);
  const git = new MemorySource();
  git.set(manifestFiles(size, before));
  const namespaces = Array.from({ length: size.namespaces }, (_, i) => namespaceName(i));
  const target = { name: 'bench', globs: ['k8s/**/*.yaml'], defaultNamespace: 'default', allowedNamespaces: namespaces, stateNamespace: 'default' };
  const timing = { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() };
  const recordKey = RecordKey.fromText(randomBytes(32).toString('base64'), 'the bench');
  // The pass as the app runs it for a target without `usage`: app/run-targets.ts gives every plan and apply pass the
  // size proposal step, which then makes the write-back decisions alone (usage/size-proposals.ts). So write-back's
  // cost is the pass's, and the usage scenario below compares against a pass that already pays it.
  const writeBackStep = sizeProposalStep({}, undefined);
  const pass = (): Promise<PassReport> => runPass({ target, git, cluster, mode: 'apply', holderIdentity: 'bench', timing, apiConcurrency: concurrency, recordKey, proposeSizes: writeBackStep });
  // The same pass reading usage from the sandbox's Prometheus API (10 ms latency too) and deciding growth and write-back.
  const step = sizeProposalStep(
    { usage: { prometheus: { url: prometheusUrl } }, growth: { usedPercent: 80, fullWithinSeconds: 7 * 86_400, step: { percent: 50 }, max: '100Gi', openAtOnce: 5 } },
    { endpoint: { url: prometheusUrl, authorize: prometheusAuthorizer(undefined) }, timeoutMs: () => 30_000 },
  );
  // The step as the pass runs it; the last plan it decided from is kept, to time the step alone afterwards.
  const usage: UsageBench = { step, writeBackStep, last: undefined };
  const proposeSizes: SizeProposalStep = (namespaces, at, sets) => {
    const decide = step(namespaces, at, sets);
    return (planned) => {
      usage.last = { namespaces, sets, planned };
      return decide(planned);
    };
  };
  const usagePass = (): Promise<PassReport> => runPass({ target, git, cluster, mode: 'apply', holderIdentity: 'bench', timing, apiConcurrency: concurrency, recordKey, proposeSizes });

  const measure: Measure = async (work) => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const value = await work();
    const used = process.cpuUsage(cpu);
    return { value, wallMs: performance.now() - t0, cpuMs: (used.user + used.system) / 1000 };
  };
  const result: Result = async (scenario, m, divideBy, extra, seen) => {
    const logs = seen ?? await host.logs();
    const counts = Object.fromEntries(Object.entries(logs.kubeCounts).map(([k, v]) => [k, v / divideBy]));
    emit({
      world, scenario, wallMs: m.wallMs, cpuMs: m.cpuMs, peakRssMiB: peakRssMiB(), kubeCalls: logs.kubeCalls / divideBy,
      kubeWrites: logs.kubeWrites / divideBy, githubCalls: logs.githubCalls / divideBy, floor: undefined, naive: undefined,
      counts, notes: [], ...extra,
    });
  };

  // The first pass over a cluster already at the desired sizes.
  await host.resetLogs();
  const first = await measure(async () => { await pass(); });
  // The naive controller reads the same world the same way on every pass: its calls beside each read-only pass.
  const naiveCalls = { calls: naiveReadCalls(size), wallMs: undefined };
  await result('first pass, cluster already converged', first, 1, {
    floor: readFloor(), naive: naiveCalls,
    notes: [`no Lease yet: recreation records looked for once (${1 + size.namespaces} LISTs: the Lease namespace and each namespace's old location), then a Lease saying none is written`],
  });

  // Steady passes: the median of three.
  const steady: Array<{ wallMs: number; cpuMs: number }> = [];
  await host.resetLogs();
  // Only the timings are kept: a report held here (6,000 PVC entries at 1,000 sets) would count in the next pass's RSS.
  for (let i = 0; i < 3; i++) {
    const { wallMs, cpuMs } = await measure(pass);
    steady.push({ wallMs, cpuMs });
  }
  steady.sort((a, b) => a.wallMs - b.wallMs);
  const steadyLogs = await host.logs();
  const steadyRss = peakRssMiB();
  // BENCH_HEAP_SNAPSHOT=file: what the controller holds after the steady passes, for Chrome DevTools' Memory tab.
  if (process.env.BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
  const memory = process.memoryUsage();
  const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
  const memoryNote = `after the steady passes: rss ${mib(memory.rss)} MiB, V8 heap ${mib(memory.heapUsed)} MiB used of ${mib(memory.heapTotal)} MiB, external ${mib(memory.external)} MiB`;

  if (!skip.has('usage')) await usageScenario(host, pass, usagePass, usage, measure, result);

  // A commit that changes no size: nothing to write.
  await host.resetLogs();
  git.set(manifestFiles(size, before));
  const unrelated = await measure(async () => { await pass(); });
  await result('pass after a commit that changes no size', unrelated, 1, { floor: readFloor(), naive: naiveCalls });

  // Worlds above 1,000 sets are resized only with --huge: no goal row is about their resize, and it takes long.
  const resize = !skip.has('resize') && (size.sets <= 1000 || process.env.BENCH_HUGE === '1');
  if (resize) await resizeScenario(host, git, pass, measure, result);

  // The naive reader runs last: its 10,000 typed objects would otherwise set the peak RSS of every scenario after it.
  const naive = skip.has('naive') ? undefined : await measure(() => naiveRead(config, size, concurrency));
  await result('steady pass (median of 3)', steady[1] ?? { wallMs: 0, cpuMs: 0 }, 3, {
    floor: readFloor(), naive: naive ? { calls: naive.value.calls, wallMs: naive.wallMs } : naiveCalls, peakRssMiB: steadyRss, notes: [memoryNote],
  }, steadyLogs);
}

/**
 * The usage read's cost: steady passes with and without it, alternated (the machine's load moves between them), the
 * medians compared; and the queries a pass sends, which are the same five at 50 sets or 5,000.
 */
interface UsageBench {
  step: SizeProposalStep;
  /** The step a target without usage runs (write-back decisions alone): what every pass pays, usage or not. */
  writeBackStep: SizeProposalStep;
  last: { namespaces: readonly string[]; sets: SetsBeforeCluster; planned: PlannedPass } | undefined;
}

/** Runs of the usage step alone over one plan (the median is reported). */
const stepRuns = 7;

async function usageScenario(host: SandboxHost, pass: () => Promise<PassReport>, usagePass: () => Promise<PassReport>, usage: UsageBench, measure: Measure, result: Result): Promise<void> {
  const plain: Array<{ wallMs: number; cpuMs: number }> = [];
  const withUsage: Array<{ wallMs: number; cpuMs: number }> = [];
  let report: PassReport | undefined;
  await host.resetLogs();
  for (let i = 0; i < 3; i++) {
    const { wallMs, cpuMs } = await measure(pass);
    plain.push({ wallMs, cpuMs });
    const used = await measure(usagePass);
    withUsage.push({ wallMs: used.wallMs, cpuMs: used.cpuMs });
    report = used.value;
  }
  const logs = await host.logs();
  // The step alone over the last pass's plan (its queries to the sandbox in the other process, its parsing and
  // decisions here): what it costs the controller, apart from the load the alternated passes see. Seven runs: on a
  // shared machine three moved its median by a fifth between runs. The step with usage also makes the write-back
  // decisions, which every pass makes without usage too (`pass` above): they are timed alone, alternated with it, and
  // usage's part is the difference of the medians; both parts are reported.
  const alone: Array<{ wallMs: number; cpuMs: number }> = [];
  const writeBackAlone: Array<{ wallMs: number; cpuMs: number }> = [];
  const last = usage.last;
  for (let i = 0; i < stepRuns && last; i++) {
    const { wallMs, cpuMs } = await measure(() => usage.step(last.namespaces, new Date(), last.sets)(last.planned));
    alone.push({ wallMs, cpuMs });
    const writeBack = await measure(() => usage.writeBackStep(last.namespaces, new Date(), last.sets)(last.planned));
    writeBackAlone.push({ wallMs: writeBack.wallMs, cpuMs: writeBack.cpuMs });
  }
  const median = (runs: Array<{ wallMs: number; cpuMs: number }>, key: 'wallMs' | 'cpuMs'): number => [...runs].sort((a, b) => a[key] - b[key])[Math.floor(runs.length / 2)]?.[key] ?? 0;
  const [plainWall, usageWall, plainCpu, usagePassCpu] = [median(plain, 'wallMs'), median(withUsage, 'wallMs'), median(plain, 'cpuMs'), median(withUsage, 'cpuMs')];
  const percent = (more: number, base: number): string => `${more >= base ? '+' : ''}${(((more - base) / base) * 100).toFixed(1)}%`;
  // Three passes with usage and three without; the Kubernetes calls of both are the pass's own, so counted per pass.
  const volumes = report?.usage?.templates.reduce((sum, t) => sum + t.replicas.length, 0) ?? 0;
  const grows = report?.growth?.filter((g) => g.action === 'grow').length ?? 0;
  const overhead = (more: number, base: number): number => ((more - base) / base) * 100;
  const [stepCpu, writeBackCpu] = [median(alone, 'cpuMs'), median(writeBackAlone, 'cpuMs')];
  const usageCpu = stepCpu - writeBackCpu;
  await result('usage read in a steady pass (median of 3)', { wallMs: usageWall, cpuMs: usagePassCpu }, 6, {
    floor: readFloor(),
    usage: {
      queriesPerPass: logs.prometheusQueries / 3, wallOverheadPercent: overhead(usageWall, plainWall), cpuOverheadPercent: overhead(usagePassCpu, plainCpu),
      stepAlone: { wallMs: median(alone, 'wallMs'), cpuMs: stepCpu, writeBackCpuMs: writeBackCpu, usageCpuMs: usageCpu, cpuPercentOfPass: (usageCpu / plainCpu) * 100 },
    },
    notes: [
      `${logs.prometheusQueries / 3} Prometheus queries per pass (${report?.usage?.outcome ?? 'no usage'}: ${volumes} volumes, growth proposed for ${grows} templates)`,
      `beside the same pass without usage, alternated (median ${plainWall.toFixed(0)} ms, ${plainCpu.toFixed(0)} ms CPU): wall ${percent(usageWall, plainWall)}, controller CPU ${percent(usagePassCpu, plainCpu)}`,
      `the usage step alone (read and decide, median of ${stepRuns}): ${median(alone, 'wallMs').toFixed(0)} ms wall, ${stepCpu.toFixed(0)} ms controller CPU, of which write-back ${writeBackCpu.toFixed(1)} ms (every pass's, usage or not): usage ${usageCpu.toFixed(0)} ms, ${((usageCpu / plainCpu) * 100).toFixed(1)}% of the pass's CPU`,
    ],
  }, logs);
}

type Measure = <T>(work: () => Promise<T>) => Promise<{ value: T; wallMs: number; cpuMs: number }>;
type Result = (scenario: string, m: { wallMs: number; cpuMs: number }, divideBy: number, extra: Partial<ScenarioResult>, seen?: HostLogs) => Promise<void>;

async function resizeScenario(host: SandboxHost, git: MemorySource, pass: () => Promise<PassReport>, measure: Measure, result: Result): Promise<void> {
  // Grow every set's data template; the sandbox's controllers tick between passes (resizer at its fastest).
  const after = { data: '20Gi', logs: '1Gi' };
  git.set(manifestFiles(size, after));
  await host.resetLogs();
  let passes = 0;
  let converged = false;
  const total = { wallMs: 0, cpuMs: 0 };
  while (total.wallMs < resizeBudgetMs && passes < 60) {
    const m = await measure(pass);
    passes += 1;
    total.wallMs += m.wallMs;
    total.cpuMs += m.cpuMs;
    if (m.value.statefulSets.every((s) => s.outcome === 'converged')) {
      converged = true;
      break;
    }
    await host.tick(2);
  }
  const logs = await host.logs();
  const pvcs = size.sets * size.replicas * 2;
  const templateUpdate = (logs.kubeCounts['update statefulsets'] ?? 0) > size.sets / 2 ? 1 : 6;
  // The floor: one patch per PVC to grow, the template update (the Lease write listing the record, the record's create,
  // orphan delete + create, the record's delete, the Lease write unlisting it; one PUT in place), one status annotation
  // per set, the reads of each pass.
  const floor = pvcs / 2 + size.sets * (templateUpdate + 1) + passes * readFloor();
  await result('resize data 10Gi -> 20Gi to convergence (pass time)', total, 1, {
    floor,
    naive: { calls: naiveResizeCalls(size, passes, templateUpdate), wallMs: undefined },
    notes: [`${passes} passes`, converged ? 'converged' : `NOT converged within ${(resizeBudgetMs / 1000).toFixed(0)} s of pass time`],
  });
}

async function githubScenario(host: SandboxHost): Promise<void> {
  const files = manifestFiles(size, { data: '10Gi', logs: '1Gi' });
  const repo = await host.startGitHub(files, latencyMs);
  const octokit = createGitHubClient({ baseUrl: repo.url, auth: { kind: 'token', token: repo.token } });
  const source = new GitHubSource(octokit, { owner: repo.owner, repo: repo.repo }, repo.branch, ['k8s/**/*.yaml']);
  await host.resetLogs();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const snapshot = await source.readBranchHead();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const logs = await host.logs();
  emit({
    world, scenario: 'first read of the desired state from GitHub (fresh container)', wallMs, cpuMs: (used.user + used.system) / 1000,
    peakRssMiB: peakRssMiB(), kubeCalls: 0, kubeWrites: 0, githubCalls: logs.githubCalls, floor: 3,
    naive: { calls: 2 + Object.keys(files).length, wallMs: undefined }, counts: logs.githubCounts,
    notes: [`${snapshot.files.size} files read`],
  });
}

await main();
