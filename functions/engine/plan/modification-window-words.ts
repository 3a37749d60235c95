// What is said of volumes within their CSI driver's modification window (modification-windows.ts): per volume in its
// progress (`waiting-for-window`), and per template in the check before merge and in growth's "no growth" line. A
// volume that used its modifications waits until the oldest of them leaves the window; one with a modification under
// way waits until it completes, which nobody can date beforehand, and the words say so rather than guess.
import type { ModificationLimit } from '../../domain/modification-limit.ts';
import type { VolumeWindow } from './plan-types.ts';

/** `6h`, `30m`, `1h30m`, `24h`: a duration as people write it. */
export function durationWords(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  return hours > 0 ? `${hours}h${minutes > 0 ? `${minutes}m` : ''}` : `${minutes}m`;
}

/** `4 modifications per volume within any 24h, and none while one is under way`; `one modification per volume every 6h, ...`. */
export function limitWords(limit: ModificationLimit): string {
  const per = durationWords(limit.perSeconds);
  return `${limit.count === 1 ? `one modification per volume every ${per}` : `${limit.count} modifications per volume within any ${per}`}, and none while one is under way`;
}

/** `waiting for the driver's window until 2026-11-29T08:00:00Z (ebs.csi.aws.com accepts 4 modifications ...; modified at ...)`. */
export function windowWords(window: VolumeWindow): string {
  if (window.reason === 'under-way') {
    return `waiting for the driver's window: a modification of this volume is under way${window.since ? ` (since ${shortTime(window.since)})` : ''} and `
      + `${window.driver} accepts ${limitWords(window.limit)}; it waits until that modification completes, a time not known beforehand`;
  }
  const times = window.modifiedAt.map(shortTime);
  const when = times.length === 1 ? `last modified ${times[0] ?? ''}` : `modified at ${times.slice(0, -1).join(', ')} and ${times.at(-1) ?? ''}`;
  return `waiting for the driver's window until ${shortTime(window.until)} (${window.driver} accepts ${limitWords(window.limit)}; ${when})`;
}

/**
 * Why the volumes wait, for a template: `data-pg-0, data-pg-1 were modified 4 times within the last 24h, and
 * ebs.csi.aws.com accepts 4 modifications per volume within any 24h, and none while one is under way`.
 */
export function windowReasons(windows: readonly VolumeWindow[]): string {
  const first = windows[0];
  if (!first) return '';
  const used = windows.filter((w) => w.reason === 'limit');
  const underWay = windows.filter((w) => w.reason === 'under-way');
  const per = durationWords(first.limit.perSeconds);
  const parts = [
    ...(used.length > 0 ? [`${claimsOf(used)} ${used.length === 1 ? 'was' : 'were'} modified ${first.limit.count === 1 ? `less than ${per} ago` : `${first.limit.count} times within the last ${per}`}`] : []),
    ...(underWay.length > 0 ? [`${claimsOf(underWay)} ${underWay.length === 1 ? 'has a modification' : 'have modifications'} under way`] : []),
  ];
  return `${parts.join(' and ')}, and ${first.driver} accepts ${limitWords(first.limit)}`;
}

/**
 * Until when the template's volumes wait: `until 2026-11-29T08:00:00Z` (with `at the latest` when several wait), and
 * for modifications under way, until they complete, a time not known yet.
 */
export function windowUntil(windows: readonly VolumeWindow[]): string {
  const latest = latestUntil(windows);
  const used = windows.filter((w) => w.reason === 'limit').length;
  const underWay = windows.length - used;
  const dated = latest === undefined ? [] : [`until ${shortTime(latest)}${used > 1 ? ' at the latest' : ''}`];
  const undated = underWay === 0 ? [] : [`until ${underWay === 1 ? 'the modification under way completes' : 'the modifications under way complete'}, a time not known yet`];
  return [...dated, ...undated].join(', and ');
}

/** The latest time a volume that used its modifications may be modified again (ISO), if any did. */
export function latestUntil(windows: readonly VolumeWindow[]): string | undefined {
  return windows.flatMap((w) => (w.reason === 'limit' ? [w.until] : [])).sort().at(-1);
}

function claimsOf(windows: readonly VolumeWindow[]): string {
  return windows.map((w) => w.claim).join(', ');
}

/** An ISO time without its milliseconds: `2026-11-28T14:00:00Z`. */
export function shortTime(iso: string): string {
  return iso.replace(/\.\d{3}Z$/, 'Z');
}
