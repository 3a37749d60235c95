// `npm run bench`: the worlds of issue 14 (N StatefulSets x 3 replicas x 2 templates over 20 or 100 namespaces,
// quotas, 10 ms injected latency on every request), each in its own controller process (scenario.ts) with the
// sandboxes in a child process, then the Lambda bundle; last, each goal row with its measured figure.
// Numbers are printed, never asserted: speed is measured here, not in tests.
// The 5,000 x 100 world is read but not resized (its resize would take longer than the rest together); --huge (or
// BENCH_HUGE=1) resizes it too. BENCH_WORLDS=50x20,200x20 picks worlds; BENCH_SKIP=resize,github,bundle,cluster,naive leaves scenarios out (cluster: every
// Kubernetes one; naive: the per-object reader beside the steady pass); BENCH_OUT=file.json keeps the raw results;
// BENCH_SANDBOX_CPU_PROF=dir profiles the sandboxes' process. Then push -> verdict latency (verdict.ts;
// BENCH_ONLY=verdict runs it alone, BENCH_SKIP=verdict leaves it out).
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { lambdaBundle } from '../infra/lambda-bundle.ts';
import { benchLambdaBundle, type BundleFigures } from './lambda-bundle.ts';
import { printGoals } from './goals.ts';
import { benchVerdict, type VerdictFigures } from './verdict.ts';
import type { ScenarioResult } from './scenario.ts';

const huge = process.argv.includes('--huge') || process.env.BENCH_HUGE === '1';
const worlds = (process.env.BENCH_WORLDS ?? '50x20,200x20,1000x20,5000x100')
  .split(',').map((w) => w.split('x').map(Number) as [number, number]);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const only = process.env.BENCH_ONLY;

/**
 * The controller of each world runs from an esbuild bundle built as the Lambda's is (bench/scenario.ts and what it
 * imports), in plain Node: its RSS and CPU are then the product's, not tsx's on-the-fly compilation.
 */
async function bundleScenario(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-bench-controller-'));
  const file = join(dir, 'scenario.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./scenario.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm',
    target: lambdaBundle.target, mainFields: [...lambdaBundle.mainFields], banner: { js: lambdaBundle.banner }, minify: lambdaBundle.minify,
    outfile: file, logLevel: 'error',
  });
  return file;
}

function runWorld(controller: string, sets: number, namespaces: number): Promise<ScenarioResult[]> {
  return new Promise((resolve, reject) => {
    // BENCH_CONTROLLER_FLAGS: Node flags for the controller process alone (say, the heap limits a Lambda of some size sets).
    const flags = (process.env.BENCH_CONTROLLER_FLAGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...flags, controller, String(sets), String(namespaces)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...(huge ? { BENCH_HUGE: '1' } : {}), BENCH_SANDBOX_HOST: fileURLToPath(new URL('./sandbox-host.ts', import.meta.url)), BENCH_REPO_ROOT: fileURLToPath(new URL('..', import.meta.url)) },
    });
    const results: ScenarioResult[] = [];
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('RESULT ')) {
          const result = JSON.parse(line.slice('RESULT '.length)) as ScenarioResult;
          results.push(result);
          printResult(result);
        } else if (line.trim()) process.stdout.write(`  | ${line}\n`);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(results) : reject(new Error(`world ${sets}x${namespaces} exited with ${code ?? '?'}`))));
  });
}

function printResult(r: ScenarioResult): void {
  const row = (label: string, value: string | number): void => { process.stdout.write(`    ${label.padEnd(34)} ${value}\n`); };
  process.stdout.write(`\n  [${r.world}] ${r.scenario}\n`);
  row('wall (ms)', r.wallMs.toFixed(0));
  row('controller CPU (ms)', r.cpuMs.toFixed(0));
  row('controller peak RSS so far (MiB)', r.peakRssMiB.toFixed(0));
  row('Kubernetes calls / writes', `${r.kubeCalls} / ${r.kubeWrites}`);
  if (r.githubCalls > 0) row('GitHub calls', r.githubCalls);
  if (r.floor !== undefined && !r.notes.some((n) => n.startsWith('NOT converged'))) {
    const calls = r.kubeCalls + (r.kubeCalls === 0 ? r.githubCalls : 0);
    row('floor / ratio', `${r.floor} / ${(calls / r.floor).toFixed(2)}`);
  }
  if (r.naive) row('naive per-object baseline', `${r.naive.calls} calls${r.naive.wallMs === undefined ? '' : `, ${r.naive.wallMs.toFixed(0)} ms (x${(r.naive.wallMs / r.wallMs).toFixed(1)})`}`);
  for (const note of r.notes) row('note', note);
  const counts = Object.entries(r.counts).sort(([a], [b]) => a.localeCompare(b));
  if (counts.length > 0) process.stdout.write(`    calls: ${counts.map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(1)}`).join(', ')}\n`);
}

async function verdictScenario(): Promise<VerdictFigures> {
  process.stdout.write('\n  [verdict] push -> check on the head commit, through the webhook (1,000 files, 50 open pull requests)\n');
  const figures = await benchVerdict((line) => process.stdout.write(`  | ${line}\n`));
  for (const [what, f] of [['pull request push', figures.pullRequest], ['merge queue entry', figures.mergeGroup]] as const) {
    process.stdout.write(`    ${`${what} p50 / p95 / max`.padEnd(34)} ${(f.p50Ms / 1000).toFixed(2)} s / ${(f.p95Ms / 1000).toFixed(2)} s / ${(f.maxMs / 1000).toFixed(2)} s (${f.samples} samples)\n`);
  }
  return figures;
}

async function main(): Promise<void> {
  if (only === 'verdict') {
    printGoals([], undefined, await verdictScenario());
    return;
  }
  const latency = process.env.BENCH_LATENCY_MS ?? '10';
  process.stdout.write(`Worlds: ${worlds.map(([s, n]) => `${s} sets x ${n} namespaces`).join('; ')}; 3 replicas x 2 templates; ${latency} ms latency per request\n`);
  const results: ScenarioResult[] = [];
  const controller = await bundleScenario();
  for (const [sets, namespaces] of worlds) results.push(...await runWorld(controller, sets, namespaces));
  let bundle: BundleFigures | undefined;
  if (!skip.has('bundle')) bundle = await benchLambdaBundle((rows) => { for (const [l, v] of rows) process.stdout.write(`  ${l.padEnd(44)} ${v}\n`); });
  const verdict = skip.has('verdict') ? undefined : await verdictScenario();
  printGoals(results, bundle, verdict);
  if (process.env.BENCH_OUT) await writeFile(process.env.BENCH_OUT, JSON.stringify({ results, bundle }, null, 2));
}

await main();
