// What the node replay compares besides the claim's states (csi/compare-states.ts): the Events of the expansion, the
// pod the claim is mounted in, and when the node step came.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../sandbox/kube/store.ts';
import { normaliseEventText } from '../csi/outputs.ts';
import type { NodePlayed } from './play.ts';
import { recordedSyncFrequencySeconds } from './play.ts';
import { watchTime, type NodeRecording } from './recording.ts';

type Json = Record<string, unknown>;

/** An Event as compared: who it is about, what it says, who said it (source and reporting, host included), how often. */
function eventView(event: KubeObject): string {
  const involved = (event.involvedObject ?? {}) as Json;
  const source = (event.source ?? {}) as Json;
  return JSON.stringify({
    object: `${String(involved.kind)}/${String(involved.name)}`, type: event.type, reason: event.reason, message: normaliseEventText(typeof event.message === 'string' ? event.message : ''),
    source: { component: source.component, host: source.host ?? null }, reportingComponent: event.reportingComponent ?? '', reportingInstance: event.reportingInstance ?? '',
    count: event.count ?? 1,
  });
}

/** client-go names an Event `<object>.<UnixNano of its first occurrence, hex>`: the order they were first recorded in. */
function firstRecorded(events: readonly KubeObject[]): KubeObject[] {
  const nanos = (e: KubeObject): bigint => BigInt(`0x${e.metadata.name.split('.').at(-1) ?? '0'}`);
  return [...events].sort((a, b) => (nanos(a) < nanos(b) ? -1 : nanos(a) > nanos(b) ? 1 : 0));
}

function aboutExpansion(events: readonly KubeObject[], names: ReadonlySet<string>, after: number): KubeObject[] {
  return firstRecorded(events.filter((e) => names.has(String((e.involvedObject as Json | undefined)?.name)) && Number(e.metadata.resourceVersion) > after));
}

/**
 * The Events recorded on the claim and its pod from the patch on (the resourceVersion the patch answered), in the
 * order they were first recorded: the same Events, field for field (uids normalised), in the same order.
 */
export function compareExpansionEvents(recording: NodeRecording, played: NodePlayed): string[] {
  const pod = recording.pods.at(-1)?.metadata.name ?? '';
  const names = new Set([recording.claimName, pod]);
  const patchedAt = Number(recording.claim.find((line) => line.spec.requests?.storage !== recording.claim[0]?.spec.requests?.storage)?.rv);
  const recorded = aboutExpansion(recording.events, names, patchedAt).map(eventView);
  const sandbox = aboutExpansion(played.events, names, played.patchedVersion).map(eventView);
  const differences = [
    ...recorded.filter((e) => !sandbox.includes(e)).map((e) => `only recorded: ${e}`),
    ...sandbox.filter((e) => !recorded.includes(e)).map((e) => `only sandbox: ${e}`),
  ];
  const common = (a: string[], b: string[]): string[] => a.filter((e) => b.includes(e));
  const reasons = (list: string[]): string => list.map((e) => { const v = JSON.parse(e) as Json; return `${String(v.reason)} on ${String(v.object)}`; }).join(', ');
  if (!isDeepStrictEqual(common(recorded, sandbox), common(sandbox, recorded))) {
    differences.push(`order: recorded ${reasons(common(recorded, sandbox))}; sandbox ${reasons(common(sandbox, recorded))}`);
  }
  return differences;
}

/** The pod: on the recorded node, never written again after the patch (not restarted, not even its status touched). */
export function comparePod(recording: NodeRecording, played: NodePlayed): string[] {
  const differences: string[] = [];
  const recordedNode = recording.pods.at(-1)?.spec?.nodeName;
  const sandboxNode = played.podVersions.at(-1)?.object.spec?.nodeName;
  if (recordedNode !== sandboxNode) differences.push(`nodeName: recorded ${String(recordedNode)}, sandbox ${String(sandboxNode)}`);
  const patchedRv = Number(recording.claim.find((line) => line.spec.requests?.storage !== recording.claim[0]?.spec.requests?.storage)?.rv);
  const recordedAfter = recording.pods.filter((p) => Number(p.metadata.resourceVersion) > patchedRv).length;
  const sandboxAfter = played.podVersions.filter((p) => Number(p.object.metadata.resourceVersion) > played.patchedVersion).length;
  if (recordedAfter !== sandboxAfter) differences.push(`pod versions after the patch: recorded ${recordedAfter}, sandbox ${sandboxAfter}`);
  const uids = new Set(played.podVersions.map((p) => p.object.metadata.uid));
  if (uids.size !== 1) differences.push(`pods: recorded one (${recording.pods.at(-1)?.metadata.uid ?? '?'}), sandbox ${uids.size}`);
  return differences;
}

/**
 * When the node step came: at the kubelet's next sync of the running pod, one sync period after its last (the one that
 * started it) and at most half a period more (the pod workers' jitter), however soon after the controller step. The
 * recording and the sandbox are each held to that window; the pod's start is known to the second (its container's
 * `startedAt`), so the window is a second wider.
 */
export function compareNodeStepTime(recording: NodeRecording, played: NodePlayed): string[] {
  const window = { from: recordedSyncFrequencySeconds, to: recordedSyncFrequencySeconds * 1.5 + 1 };
  const started = (pod: KubeObject | undefined): number => {
    const statuses = (pod?.status?.containerStatuses ?? []) as Array<{ state?: { running?: { startedAt?: string } } }>;
    return Date.parse(statuses[0]?.state?.running?.startedAt ?? '');
  };
  const inProgress = (status: Json | undefined): boolean => (status?.allocatedResourceStatuses as Json | undefined)?.storage === 'NodeResizeInProgress';
  const recordedLine = recording.claim.find((line) => inProgress(line.status));
  const recordedSeconds = recordedLine ? (watchTime(recordedLine) - started(recording.pods.at(-1))) / 1000 : Number.NaN;
  const sandboxVersion = played.claimVersions.find((v) => inProgress(v.object.status));
  const sandboxSeconds = sandboxVersion ? (sandboxVersion.at - started(played.podVersions.at(-1)?.object)) / 1000 : Number.NaN;
  const within = (s: number): boolean => s >= window.from && s <= window.to;
  const describe = (s: number): string => (Number.isNaN(s) ? 'never' : `${s.toFixed(1)} s after the pod started`);
  if (within(recordedSeconds) && within(sandboxSeconds)) return [];
  return [`node step: recorded ${describe(recordedSeconds)}, sandbox ${describe(sandboxSeconds)} (the kubelet's next pod sync: ${window.from}-${window.to} s after the pod started)`];
}
