// A real Prometheus (Debian's `prometheus` package, 2.42) over days of backfilled kubelet volume statistics: the
// OpenMetrics text written here, `promtool tsdb create-blocks-from openmetrics` into a TSDB in a temporary folder, and
// the server started on a free loopback port (never 9090, where a packaged service may listen). Used by the recording
// script (record.ts) and by the test that runs the tool's reader against it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BackfilledVolume } from './world.ts';
import { freePort } from '../../support/free-port.ts';

const run = promisify(execFile);

/** Whether the binaries are installed (`apt-get install prometheus`); the test that needs them says so when not. */
export async function prometheusInstalled(): Promise<boolean> {
  try {
    await run('prometheus', ['--version']);
    await run('promtool', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** The OpenMetrics text of the volumes' series, one sample every `stepSeconds` over `days` ending at `end` (unix seconds). */
export function openMetricsOf(volumes: readonly BackfilledVolume[], end: number, days: number, stepSeconds: number): string {
  const start = end - days * 86_400;
  const families: Array<[string, string, (v: BackfilledVolume, ago: number) => number | undefined]> = [
    ['kubelet_volume_stats_used_bytes', 'Number of used bytes in the volume', (v, ago) => Math.trunc(v.usedBytes - (v.bytesPerDay * ago) / 86_400)],
    ['kubelet_volume_stats_capacity_bytes', 'Capacity in bytes of the volume', (v) => v.capacityBytes],
    ['kubelet_volume_stats_available_bytes', 'Number of available bytes in the volume', (v, ago) => v.capacityBytes - Math.trunc(v.usedBytes - (v.bytesPerDay * ago) / 86_400)],
    ['kubelet_volume_stats_inodes', 'Maximum number of inodes in the volume', (v) => v.inodes],
    ['kubelet_volume_stats_inodes_free', 'Number of free inodes in the volume', (v, ago) => (v.inodesUsed === undefined ? undefined : v.inodes - Math.trunc(v.inodesUsed - ((v.inodesPerDay ?? 0) * ago) / 86_400))],
    ['kubelet_volume_stats_inodes_used', 'Number of used inodes in the volume', (v, ago) => (v.inodesUsed === undefined ? undefined : Math.trunc(v.inodesUsed - ((v.inodesPerDay ?? 0) * ago) / 86_400))],
  ];
  const lines: string[] = [];
  for (const [name, help, value] of families) {
    lines.push(`# HELP ${name} [ALPHA] ${help}`, `# TYPE ${name} gauge`);
    for (const volume of volumes) {
      for (const extra of volume.series) {
        const labels = Object.entries({ ...extra, namespace: volume.namespace, persistentvolumeclaim: volume.claim })
          .sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}="${v}"`).join(',');
        for (let t = start; t <= end; t += stepSeconds) {
          const sample = value(volume, end - t);
          if (sample !== undefined) lines.push(`${name}{${labels}} ${sample} ${t}`);
        }
      }
    }
  }
  return `${lines.join('\n')}\n# EOF\n`;
}

export interface RealPrometheus {
  url: string;
  /** The time of the last sample (unix seconds): instant queries are asked at it (the 5-minute lookback ends there). */
  lastSampleTime: number;
  close(): Promise<void>;
}

/** Backfills the volumes' series (3 days, every 5 minutes, ending at `end`) and starts Prometheus over them. */
export async function startRealPrometheus(volumes: readonly BackfilledVolume[], end: number, options: { days?: number; stepSeconds?: number } = {}): Promise<RealPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-real-prometheus-'));
  let child: ChildProcess | undefined;
  try {
    await writeFile(join(dir, 'data.om'), openMetricsOf(volumes, end, options.days ?? 3, options.stepSeconds ?? 300));
    await run('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', join(dir, 'data.om'), join(dir, 'tsdb')]);
    await writeFile(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 1m\nscrape_configs: []\n');
    const port = await freePort();
    const started = spawn('prometheus', [
      `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=30d', '--log.level=warn',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const url = `http://127.0.0.1:${port}`;
    await waitUntilReady(url, started, () => stderr);
    return {
      url, lastSampleTime: end,
      close: async () => {
        started.kill('SIGTERM');
        await new Promise<void>((resolve) => (started.exitCode !== null ? resolve() : started.once('exit', () => resolve())));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function waitUntilReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${stderr()}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prometheus did not become ready in 30 s: ${stderr()}`);
}
