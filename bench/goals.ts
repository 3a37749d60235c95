// The goal rows of issue 14, each with the figure this run measured (or why there is none).
import type { BundleFigures } from './lambda-bundle.ts';
import type { ScenarioResult } from './scenario.ts';
import type { VerdictFigures } from './verdict.ts';

export function printGoals(results: readonly ScenarioResult[], bundle: BundleFigures | undefined, verdict?: VerdictFigures): void {
  const find = (world: string, scenario: string): ScenarioResult | undefined =>
    results.find((r) => r.world === world && r.scenario.startsWith(scenario));
  const notRun = 'not run';
  const steady = (world: string): string => {
    const r = find(world, 'steady pass');
    return r ? `${(r.wallMs / 1000).toFixed(2)} s, ${r.kubeCalls} calls (floor ${r.floor ?? '?'})` : notRun;
  };
  const rss = (world: string): string => {
    const rs = results.filter((r) => r.world === world && !r.scenario.startsWith('first read'));
    return rs.length ? `${Math.max(...rs.map((r) => r.peakRssMiB)).toFixed(0)} MiB` : notRun;
  };
  // The floor counts every PVC's patch: a resize cut short by the time budget has no meaningful ratio.
  const resizeRatios = results.filter((r) => r.scenario.startsWith('resize'))
    .map((r) => `${r.world.split(' ')[0]}: ${r.notes.includes('converged') ? (r.kubeCalls / (r.floor ?? 1)).toFixed(2) : 'not converged'}`).join(', ') || notRun;
  const resize1000 = find('1000 sets x 20 ns', 'resize');
  const github = find('1000 sets x 20 ns', 'first read') ?? results.filter((r) => r.scenario.startsWith('first read')).at(-1);
  const writes = results.filter((r) => r.scenario.startsWith('pass after a commit'));
  const usage = results.filter((r) => r.usage !== undefined);
  const usage1000 = find('1000 sets x 20 ns', 'usage read')?.usage;
  const rows: Array<[string, string, string]> = [
    ['steady pass, 1,000 sets, 10 ms latency', steady('1000 sets x 20 ns'), '<= 1.0 s; 82 calls'],
    ['steady pass, 5,000 sets x 100 namespaces', steady('5000 sets x 100 ns'), '<= 4 s, calls = floor'],
    ['controller peak RSS at 1,000 / 5,000 sets', `${rss('1000 sets x 20 ns')} / ${rss('5000 sets x 100 ns')}`, '< 150 MB / < 300 MB'],
    ['resize, Kubernetes calls / floor', resizeRatios, '<= 1.1'],
    ['resize of 1,000 sets to convergence', resize1000 ? `${(resize1000.wallMs / 1000).toFixed(0)} s of pass time (${resize1000.notes.join(', ')})` : notRun, '< 3 min of pass time'],
    ['first pass in a fresh container', github ? `${(github.wallMs / 1000).toFixed(2)} s, ${github.githubCalls} GitHub calls (${github.world}, ${github.notes.join(', ')})` : notRun, '< 5 s'],
    ['usage read: Prometheus queries per pass (issue 36)', usage.length ? usage.map((r) => `${r.world.split(' ')[0]}: ${r.usage?.queriesPerPass ?? '?'}`).join(', ') : notRun, 'fixed, not per volume'],
    ['usage read: overhead on a 1,000-set pass', usage1000 ? `wall ${usage1000.wallOverheadPercent.toFixed(1)}%, controller CPU ${usage1000.cpuOverheadPercent.toFixed(1)}% (alternated); step alone ${usage1000.stepAlone.cpuMs.toFixed(0)} ms CPU, usage's part (less write-back's ${usage1000.stepAlone.writeBackCpuMs.toFixed(1)} ms) ${usage1000.stepAlone.usageCpuMs.toFixed(0)} ms, ${usage1000.stepAlone.cpuPercentOfPass.toFixed(1)}%` : notRun, '< 10%'],
    ['writes on a converged cluster after any commit', writes.length ? writes.map((r) => `${r.world.split(' ')[0]}: ${r.kubeWrites}`).join(', ') : notRun, '0'],
    ['push -> check on the head, p50 / p95 (issue 24)', verdict ? `${(verdict.pullRequest.p50Ms / 1000).toFixed(2)} s / ${(verdict.pullRequest.p95Ms / 1000).toFixed(2)} s` : notRun, 'p95 < 2 s'],
    ['merge queue entry -> check, p50 / p95', verdict ? `${(verdict.mergeGroup.p50Ms / 1000).toFixed(2)} s / ${(verdict.mergeGroup.p95Ms / 1000).toFixed(2)} s` : notRun, 'p95 < 2 s'],
    ['Lambda bundle / cold import', bundle ? bundle.entries.map((e) => `${e.name} ${(e.bytes / 1e6).toFixed(2)} MB / ${e.coldImportMs.toFixed(0)} ms`).join('; ') : notRun, '< 3 MB / < 150 ms'],
  ];
  process.stdout.write('\nGoals of issues 14 and 24 (measured in this run):\n');
  process.stdout.write(`  ${'what'.padEnd(48)} ${'measured'.padEnd(64)} goal\n`);
  for (const [what, measured, goal] of rows) process.stdout.write(`  ${what.padEnd(48)} ${measured.padEnd(64)} ${goal}\n`);
}
