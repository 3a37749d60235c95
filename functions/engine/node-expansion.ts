// A volume whose expansion waits for its node (NodeResizePending: the kubelet expands the file system while a pod
// mounts the volume; the resizer says "Waiting for user to (re-)start a pod ...") is in progress, with what a person can
// do, until the target's `stalledAfter` has passed since the wait began; then it is stalled: nothing changes until a
// person acts, and the pass says so (the set's outcome `stalled`: exit code 1, a failing progress check). A node
// expansion that failed with an error the kubelet retries (NodeResizeError, dated from its first failure) is stalled
// the same way. Texts stay the same from pass to pass (a time, never an age), so a stalled set writes nothing new. Pure.
import { defaultStalledAfter } from '../domain/config.ts';
import { formatDuration, parseDuration } from '../domain/duration.ts';
import type { LivePod } from '../domain/live-state.ts';
import type { PvcProgress } from './pvc-progress.ts';

export interface NodeWaitPolicy {
  now: Date;
  stalledAfterSeconds: number;
}

/** The policy of a target (PassTarget.stalledAfterSeconds, from `stalledAfter`), at the pass's time. */
export function nodeWaitPolicy(target: { stalledAfterSeconds?: number | undefined }, now: Date): NodeWaitPolicy {
  return { now, stalledAfterSeconds: target.stalledAfterSeconds ?? parseDuration(defaultStalledAfter) ?? 3600 };
}

/** What a person does for the pod whose node must finish the expansion, as far as its phase is known. */
function podAdvice(namespace: string, podName: string, pod: LivePod | undefined, known: boolean): string {
  const restart = `restart it (kubectl delete pod -n ${namespace} ${podName}: its StatefulSet recreates it) so that its node expands the file system`;
  if (known && !pod) return `pod ${podName} does not exist: the expansion waits until it runs on a node`;
  if (pod && (pod.phase !== 'Running' || pod.deleting)) return `pod ${podName} is ${pod.deleting ? 'terminating' : pod.phase ?? 'not running'}: the expansion waits until it runs on a node`;
  if (pod) return `pod ${podName} runs: ${restart}`;
  return `if pod ${podName} is not running, the expansion waits until it runs on a node; if it runs, ${restart}`;
}

/**
 * The claims waiting for (or on) their node, with what to do, and those waiting longer than `stalledAfter` stalled.
 * `pods` (the namespace's, when read) refine the advice; without a policy nothing is called stalled.
 */
export function withNodeWaits(
  progress: readonly PvcProgress[], sts: { namespace: string; name: string }, policy: NodeWaitPolicy | undefined, pods?: readonly LivePod[],
): PvcProgress[] {
  return progress.map((claim) => {
    const failingOnNode = claim.state === 'retrying' && claim.condition?.type === 'NodeResizeError';
    if (claim.state !== 'waiting-for-node' && claim.state !== 'resizing-node' && !failingOnNode) return claim;
    const podName = `${sts.name}-${claim.ordinal}`;
    const advice = podAdvice(sts.namespace, podName, pods?.find((p) => p.name === podName), pods !== undefined);
    const logs = "read the pod's Events and that kubelet's log";
    const words = claim.state === 'waiting-for-node' ? `${claim.message ?? 'waiting for the node'}; ${advice}`
      : failingOnNode ? `${claim.message ?? 'the node expansion failed'}; the kubelet on pod ${podName}'s node retries it; if it keeps failing, ${logs}`
        : `the kubelet on pod ${podName}'s node is expanding the file system; if it does not finish, ${logs}`;
    const began = claim.since === undefined ? Number.NaN : Date.parse(claim.since);
    const stalled = policy !== undefined && !Number.isNaN(began) && policy.now.getTime() - began >= policy.stalledAfterSeconds * 1000;
    if (!stalled) return { ...claim, message: words };
    return {
      ...claim, state: 'stalled-on-node',
      message: `${failingOnNode ? 'failing on the node' : 'waiting for the node'} since ${claim.since ?? '?'}, longer than stalledAfter ${formatDuration(policy.stalledAfterSeconds)}: ${words}`,
    };
  });
}
