// A volume whose expansion waits for its node (NodeResizePending, with the resizer's condition "Waiting for user to
// (re-)start a pod ...") is in progress, said as what the kubelet is doing: a real kubelet v1.34.9 expands the file
// system of a running pod's volume at its next sync of that pod, with the pod running (recorded:
// ../shared/conformance/node-v1.34.9/; 21 online expansions finished 0.2-28.6 s after the controller step), or when a
// pod that is not running starts; NodeResizeInProgress is the kubelet at work. No restart is advised then: it would
// restart exactly the pods the tool's orphan delete keeps. Once the target's `stalledAfter` has passed since the wait
// began, it is stalled: nothing changes until a person acts, so restarting the pod (what a driver without online
// expansion needs) is advised, and the pass says so (the set's outcome `stalled`: exit code 1, a failing progress
// check). A node expansion that failed with an error the kubelet retries (NodeResizeError, dated from its first
// failure) is stalled the same way. Texts stay the same from pass to pass (a time, never an age), so a stalled set
// writes nothing new. Pure.
import { defaultStalledAfter } from '../../domain/config.ts';
import { formatDuration, parseDuration } from '../../domain/duration.ts';
import type { LivePod } from '../../domain/live-state.ts';
import type { PvcProgress } from './pvc-progress.ts';

export interface NodeWaitPolicy {
  now: Date;
  stalledAfterSeconds: number;
}

/** The policy of a target (PassTarget.stalledAfterSeconds, from `stalledAfter`), at the pass's time. */
export function nodeWaitPolicy(target: { stalledAfterSeconds?: number | undefined }, now: Date): NodeWaitPolicy {
  return { now, stalledAfterSeconds: target.stalledAfterSeconds ?? parseDuration(defaultStalledAfter) ?? 3600 };
}

/** The pod whose kubelet finishes the expansion, as far as the pass read it. */
interface PodOnNode {
  namespace: string;
  name: string;
  /** Read: the namespace's pods were listed (absent from them: the pod does not exist). */
  known: boolean;
  pod: LivePod | undefined;
}

function isRunning(pod: LivePod | undefined): boolean {
  return pod !== undefined && pod.phase === 'Running' && !pod.deleting;
}

function kubeletOf(pod: PodOnNode): string {
  return pod.pod?.node ? `the kubelet on ${pod.pod.node}` : `the kubelet on pod ${pod.name}'s node`;
}

/** What the kubelet is doing about a volume waiting for the node (NodeResizePending): nothing for a person to do. */
function waitingWords(pod: PodOnNode, policy: NodeWaitPolicy | undefined): string {
  if (isRunning(pod.pod)) {
    const unless = policy ? ` unless it still waits after stalledAfter (${formatDuration(policy.stalledAfterSeconds)})` : '';
    return `${kubeletOf(pod)} expands the file system at its next sync of pod ${pod.name}, which runs (every --sync-frequency, 1m by default); no restart is needed${unless}`;
  }
  if (pod.pod) return `pod ${pod.name} is ${pod.pod.deleting ? 'terminating' : pod.pod.phase ?? 'not running'}: the kubelet expands the file system when the pod starts on a node`;
  if (pod.known) return `pod ${pod.name} does not exist: the kubelet expands the file system when it runs on a node`;
  return `the kubelet expands the file system at its next sync of pod ${pod.name}, or when the pod starts on a node`;
}

/** What a person does once the wait has lasted longer than `stalledAfter`. */
function stalledAdvice(pod: PodOnNode, condition: string | undefined, logs: string): string {
  const resizer = condition ? `the resizer says "${condition}"; ` : '';
  const restart = `restart it (kubectl delete pod -n ${pod.namespace} ${pod.name}: its StatefulSet recreates it) so that the kubelet expands the file system as it mounts the volume (a driver without online expansion needs this)`;
  if (isRunning(pod.pod)) return `${resizer}pod ${pod.name} runs${pod.pod?.node ? ` on ${pod.pod.node}` : ''}: ${restart}, or ${logs}`;
  if (pod.pod) return `${resizer}pod ${pod.name} is ${pod.pod.deleting ? 'terminating' : pod.pod.phase ?? 'not running'}: the expansion waits until it runs on a node (kubectl describe pod -n ${pod.namespace} ${pod.name})`;
  if (pod.known) return `${resizer}pod ${pod.name} does not exist: the expansion waits until it runs on a node`;
  return `${resizer}if pod ${pod.name} is not running, the expansion waits until it runs on a node; if it runs, ${restart}`;
}

/**
 * The claims waiting for (or on) their node, with what the kubelet is doing, and those waiting longer than
 * `stalledAfter` stalled, with what a person does. `pods` (the namespace's, when read) say whether the pod runs and
 * where; without a policy nothing is called stalled.
 */
export function withNodeWaits(
  progress: readonly PvcProgress[], sts: { namespace: string; name: string }, policy: NodeWaitPolicy | undefined, pods?: readonly LivePod[],
): PvcProgress[] {
  return progress.map((claim) => {
    const failingOnNode = claim.state === 'retrying' && claim.condition?.type === 'NodeResizeError';
    if (claim.state !== 'waiting-for-node' && claim.state !== 'resizing-node' && !failingOnNode) return claim;
    const name = `${sts.name}-${claim.ordinal}`;
    const pod: PodOnNode = { namespace: sts.namespace, name, known: pods !== undefined, pod: pods?.find((p) => p.name === name) };
    const queued = claim.queued ? `; ${claim.queued}` : '';
    const began = claim.since === undefined ? Number.NaN : Date.parse(claim.since);
    const stalled = policy !== undefined && !Number.isNaN(began) && policy.now.getTime() - began >= policy.stalledAfterSeconds * 1000;
    const logs = `read pod ${name}'s Events and ${pod.pod?.node ? `the kubelet's log on ${pod.pod.node}` : "its node's kubelet log"}`;
    if (!stalled) {
      const words = claim.state === 'waiting-for-node' ? waitingWords(pod, policy)
        : failingOnNode ? `${claim.message ?? 'the node expansion failed'}; ${kubeletOf(pod)} retries it; if it keeps failing, ${logs}`
          : `NodeResizeInProgress: ${kubeletOf(pod)} is expanding the file system`;
      return { ...claim, message: `${words}${queued}` };
    }
    const longer = `since ${claim.since ?? '?'}, longer than stalledAfter ${formatDuration(policy.stalledAfterSeconds)}`;
    const message = claim.state === 'waiting-for-node' ? `waiting for the node ${longer}: ${stalledAdvice(pod, claim.condition?.message, logs)}`
      : failingOnNode ? `failing on the node ${longer}: ${claim.message ?? 'the node expansion failed'}; ${kubeletOf(pod)} retries it; ${logs}`
        : `expanding on the node ${longer}: ${kubeletOf(pod)} has not finished; ${logs}`;
    return { ...claim, state: 'stalled-on-node', message: `${message}${queued}` };
  });
}

/**
 * Every stalled claim of a template, named: one claim with its words (`data-web-0 stalled, waiting for the node since
 * ...`), several by name with the first one's words. Undefined when none is stalled.
 */
export function stalledWords(progress: ReadonlyArray<Pick<PvcProgress, 'name' | 'state' | 'message'>>): string | undefined {
  const stalled = progress.filter((p) => p.state === 'stalled-on-node');
  const [first] = stalled;
  if (!first) return undefined;
  const reason = first.message ?? 'waiting for the node';
  return stalled.length === 1 ? `${first.name} stalled, ${reason}` : `${stalled.map((p) => p.name).join(', ')} stalled; ${first.name}: ${reason}`;
}
