// Conformance: every recorded exchange with a real kube-apiserver (v1.26.5 and v1.34.9, /work/shared/conformance) is
// replayed against a sandbox playing that version and compared. A difference fails the test unless the allowlist
// names it with a reason.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadAllowlist, matchAllowlist } from './allowlist.ts';
import { replayTranscript } from './replay.ts';
import { loadTranscript } from './transcript.ts';

const conformanceDir = process.env.KUBE_CONFORMANCE_DIR ?? '/work/shared/conformance';
const recordings = [
  { version: '1.26', dir: 'kube-v1.26.5', transcripts: ['probes', 'edge-cases', 'example-pass-unfixed', 'example-pass-fixed'] },
  { version: '1.34', dir: 'kube-v1.34.9', transcripts: ['probes', 'edge-cases', 'vac-edge-cases', 'example-pass'] },
];

for (const { version, dir, transcripts } of recordings) {
  test(`the sandbox playing ${version} answers every recorded ${dir} exchange as the real server did`, async (t) => {
    const transcriptsDir = join(conformanceDir, dir);
    if (!existsSync(transcriptsDir)) {
      t.skip(`no transcripts at ${transcriptsDir}`);
      return;
    }
    assert.deepEqual(readdirSync(transcriptsDir).filter((f) => f.endsWith('.jsonl')).sort(), transcripts.map((n) => `${n}.jsonl`).sort(), 'every recorded transcript is replayed');
    const allowlist = loadAllowlist();
    const rows: string[] = [];
    const failures: string[] = [];
    const usedEntries = new Set<number>();
    for (const name of transcripts) {
      const outcomes = await replayTranscript(loadTranscript(join(transcriptsDir, `${name}.jsonl`)), version);
      let matched = 0;
      let allowlisted = 0;
      let mismatched = 0;
      for (const { exchange, differences } of outcomes) {
        if (differences.length === 0) {
          matched += 1;
          continue;
        }
        const entry = matchAllowlist(allowlist, name, exchange, version);
        if (entry !== undefined) {
          allowlisted += 1;
          usedEntries.add(entry);
          continue;
        }
        mismatched += 1;
        failures.push(`${name} #${exchange.seq} ${exchange.client} ${exchange.method} ${exchange.path}${exchange.note ? ` (${exchange.note})` : ''}\n    ${differences.join('\n    ')}`);
      }
      rows.push(`${name.padEnd(22)} ${String(outcomes.length).padStart(9)} ${String(matched).padStart(8)} ${String(allowlisted).padStart(11)} ${String(mismatched).padStart(10)}`);
    }
    for (const row of ['transcript             exchanges  matched allowlisted mismatched', ...rows]) t.diagnostic(row);
    // An entry that covers nothing any more (the sandbox learned to answer it) is reported, so it can be removed.
    for (const [index, entry] of allowlist.entries()) {
      if (!usedEntries.has(index) && (entry.version === undefined || entry.version === version)) t.diagnostic(`allowlist entry not used for ${version}: ${entry.reason}`);
    }
    assert.equal(failures.length, 0, `differences from the recorded server:\n${failures.join('\n')}`);
  });
}
