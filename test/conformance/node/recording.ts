// Reading the node recording (/work/shared/conformance/node-v1.34.9, its README.md): a real kubelet v1.34.9 growing a
// running pod's volume. Kept: the StatefulSet applied, every version of its claim (`data-smoke-0.watch-pvc.jsonl`, the
// CSI recordings' watch format), every version of its pod (`pod.watch.json`, one watch event a line), the namespace's
// Events (`events.json`), and from commands.txt the `# <time>` notes and the patch that grew the claim.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { KubeObject } from '../../../sandbox/kube/store.ts';
import type { WatchLine } from '../csi/recording.ts';

export interface NodeRecording {
  dir: string;
  statefulSet: KubeObject;
  claimName: string;
  claim: WatchLine[];
  pods: KubeObject[];
  events: KubeObject[];
  /** When the recorder applied the StatefulSet (just before its claim first appeared), ms. */
  appliedAt: number;
  /** When the pod was seen Running and Ready, ms. */
  podRunningAt: number;
  /** The patch that grew the claim: when, and its merge patch. */
  patch: { at: number; namespace: string; claim: string; body: unknown };
  /** When the recorder stopped, ms. */
  endedAt: number;
}

export function nodeRecordingExists(dir: string): boolean {
  return existsSync(join(dir, 'README.md')) && existsSync(join(dir, 'data-smoke-0.watch-pvc.jsonl'));
}

function jsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l, i) => {
    try {
      return JSON.parse(l) as T;
    } catch (error) {
      throw new Error(`${path}:${i + 1}: not a JSON line`, { cause: error });
    }
  });
}

/** A watch line's `t` (UTC, no zone) in ms. */
export function watchTime(line: WatchLine): number {
  return Date.parse(`${line.t}Z`);
}

export function loadNodeRecording(dir: string): NodeRecording {
  const claimName = 'data-smoke-0';
  const claim = jsonLines<WatchLine>(join(dir, `${claimName}.watch-pvc.jsonl`));
  const first = claim[0];
  if (!first) throw new Error(`${dir}: the claim's watch is empty`);
  const day = first.t.slice(0, 10);
  // `# 06:59:01.540 patching ...`: the notes' times are the recording day's, UTC.
  const notes: Array<{ at: number; text: string }> = [];
  let patch: NodeRecording['patch'] | undefined;
  for (const line of readFileSync(join(dir, 'commands.txt'), 'utf8').split('\n')) {
    const note = /^# (\d\d:\d\d:\d\d\.\d{3}) (.*)$/.exec(line);
    if (note) notes.push({ at: Date.parse(`${day}T${note[1] ?? ''}Z`), text: note[2] ?? '' });
    const patched = /^\$ k patch pvc -n (\S+) (\S+) --type merge -p (\{.*\})$/.exec(line);
    if (patched) patch = { at: notes.at(-1)?.at ?? Number.NaN, namespace: patched[1] ?? '', claim: patched[2] ?? '', body: JSON.parse(patched[3] ?? '{}') };
  }
  const noted = (prefix: string): number => {
    const found = notes.find((n) => n.text.startsWith(prefix));
    if (!found) throw new Error(`${dir}/commands.txt has no note "${prefix}..."`);
    return found.at;
  };
  if (!patch) throw new Error(`${dir}/commands.txt patches no claim`);
  return {
    dir, claimName, claim,
    statefulSet: load(readFileSync(join(dir, 'statefulset.yaml'), 'utf8')) as KubeObject,
    pods: jsonLines<{ object: KubeObject }>(join(dir, 'pod.watch.json')).map((event) => event.object),
    events: (JSON.parse(readFileSync(join(dir, 'events.json'), 'utf8')) as { items: KubeObject[] }).items,
    appliedAt: watchTime(first),
    podRunningAt: noted('reached: pod'),
    patch,
    endedAt: noted('done'),
  };
}
