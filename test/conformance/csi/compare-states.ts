// Comparing a claim's recorded versions with the sandbox's: the sequence of distinct states (project.ts), with the
// volume's capacity and class changes placed among them, and every snapshot of the claim found in order.
import { isDeepStrictEqual } from 'node:util';
import { projectClaim, recordedStream, renderStream, sameState, viewOfObject, type StreamItem } from './project.ts';
import type { Snapshot, WatchLine } from './recording.ts';

/** The sandbox's versions of a claim, deduplicated as the recorded ones are (only what is compared). */
export function distinctItems(items: readonly StreamItem[]): StreamItem[] {
  const result: StreamItem[] = [];
  let lastClaim: StreamItem | undefined;
  let lastVolume: StreamItem | undefined;
  for (const item of items) {
    if ('claim' in item) {
      if (lastClaim && 'claim' in lastClaim && sameState(item.claim, lastClaim.claim) && isDeepStrictEqual(item.claim.status.conditions, lastClaim.claim.status.conditions)) continue;
      lastClaim = item;
    } else {
      if (lastVolume && 'volume' in lastVolume && isDeepStrictEqual(item.volume, lastVolume.volume)) continue;
      lastVolume = item;
    }
    result.push(item);
  }
  return result;
}

/**
 * The sandbox's stream from where the recorded one starts: a watch started late (a-mount's) begins at a later
 * version, with the volume as it then was.
 */
function alignedSandboxStream(recorded: readonly StreamItem[], sandbox: readonly StreamItem[]): StreamItem[] | undefined {
  const first = recorded.find((item) => 'claim' in item);
  if (!first || !('claim' in first)) return [...sandbox];
  const start = sandbox.findIndex((item) => 'claim' in item && sameState(item.claim, first.claim));
  if (start < 0) return undefined;
  const volumeBefore = sandbox.slice(0, start).filter((item) => 'volume' in item).at(-1);
  return [...(start > 0 && volumeBefore ? [volumeBefore] : []), ...sandbox.slice(start)];
}

/** A minimal edit script between two line lists, as `- recorded` / `+ sandbox` lines with their positions. */
export function lineDiff(expected: readonly string[], actual: readonly string[]): string[] {
  const n = expected.length;
  const m = actual.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = expected[i] === actual[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && expected[i] === actual[j]) {
      i += 1;
      j += 1;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(`+ sandbox #${j + 1}: ${actual[j] ?? ''}`);
      j += 1;
    } else {
      out.push(`- recorded #${i + 1}: ${expected[i] ?? ''}`);
      i += 1;
    }
  }
  return out;
}

export function compareClaimStream(lines: readonly WatchLine[], sandboxItems: readonly StreamItem[]): string[] {
  const recorded = recordedStream(lines);
  const aligned = alignedSandboxStream(recorded, distinctItems(sandboxItems));
  if (!aligned) return [`the sandbox never reached the recorded first state ${renderStream(recorded.slice(0, 1)).join('')}`];
  return lineDiff(renderStream(recorded), renderStream(aligned));
}

/** Each snapshot of the claim is one of the sandbox's versions (condition times aside), in the snapshots' order. */
export function compareSnapshots(snapshots: readonly Snapshot[], sandboxItems: readonly StreamItem[]): string[] {
  const states = sandboxItems.flatMap((item) => ('claim' in item ? [item.claim] : []));
  const differences: string[] = [];
  let from = 0;
  for (const snapshot of snapshots) {
    const view = viewOfObject(snapshot.object);
    const index = states.findIndex((state, i) => i >= from && sameState(state, view));
    if (index < 0) differences.push(`snapshot ${snapshot.file} not among the sandbox's versions: ${JSON.stringify(projectClaim(view, undefined, false))}`);
    else from = index;
  }
  return differences;
}
