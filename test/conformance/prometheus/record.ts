// Records a real Prometheus's answers to exactly the queries the tool sends (functions/usage/volume-stats-queries.ts),
// over the volumes of world.ts backfilled for three days: `node --import tsx test/conformance/prometheus/record.ts`
// (needs Debian's prometheus package: prometheus and promtool). Writes recordings.json beside it; README.md says more.
import { writeFile } from 'node:fs/promises';
import { diagnosisQueries, volumeStatsQueries } from '../../../functions/usage/volume-stats-queries.ts';
import { startRealPrometheus } from './real-prometheus.ts';
import { pg1InodesPercent, recordedInodesFrom, recordedNamespaces, recordedVolumes } from './world.ts';

/**
 * Every query recorded, named: the pass's five (inodes from 80%), check's diagnosis, the inode filter at exactly a
 * claim's share and just above it, a namespace without series, a malformed query.
 */
export function recordedQueries(): Array<{ name: string; query: string }> {
  const inodesUsedFrom = (percent: number): string => volumeStatsQueries(recordedNamespaces, percent).find((q) => q.reads === 'inodesUsed')?.promql ?? '';
  return [
    ...volumeStatsQueries(recordedNamespaces, recordedInodesFrom).map((q) => ({ name: `pass: ${q.reads}`, query: q.promql })),
    { name: 'pass: inodesUsed from exactly data-pg-1\'s share (kept)', query: inodesUsedFrom(pg1InodesPercent) },
    { name: 'pass: inodesUsed from just above data-pg-1\'s share (none)', query: inodesUsedFrom(91.56) },
    ...Object.entries(diagnosisQueries).map(([name, query]) => ({ name: `check: ${name}`, query })),
    { name: 'pass: usedBytes in a namespace without series', query: volumeStatsQueries(['nowhere'], recordedInodesFrom)[0]?.promql ?? '' },
    { name: 'malformed', query: 'max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"' },
  ];
}

export interface Recording {
  name: string;
  query: string;
  /** The `time` parameter sent (unix seconds). */
  time: number;
  status: number;
  contentType: string | null;
  body: unknown;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const end = Math.floor(Date.now() / 1000 / 300) * 300;
  const prometheus = await startRealPrometheus(recordedVolumes, end);
  try {
    const version = await fetch(`${prometheus.url}/api/v1/status/buildinfo`).then(async (r) => ((await r.json()) as { data: { version: string } }).data.version);
    const recordings: Recording[] = [];
    for (const { name, query } of recordedQueries()) {
      const response = await fetch(`${prometheus.url}/api/v1/query`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query, time: String(end) }),
      });
      recordings.push({ name, query, time: end, status: response.status, contentType: response.headers.get('content-type'), body: await response.json() });
    }
    const file = new URL('./recordings.json', import.meta.url);
    await writeFile(file, `${JSON.stringify({ prometheus: version, recordedAt: new Date().toISOString(), lastSampleTime: end, recordings }, null, 2)}\n`);
    process.stdout.write(`recorded ${recordings.length} answers of Prometheus ${version} to ${file.pathname}\n`);
  } finally {
    await prometheus.close();
  }
}
