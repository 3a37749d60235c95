// Plays the node recording against a sandbox configured as the recorded node: the CSI stack of the CSI recording
// (test/conformance/csi/stack.ts) plus a kubelet on `node-1` syncing pods every 20 s, as the recorded one did. The
// StatefulSet is applied when the recorder applied it, the claim patched when it was patched, and the sandbox clock
// moves on in steps of 100 ms to the recording's end, the controllers ticking until nothing changes at each step.
import { mustResourceType, type KubeObject } from '../../../sandbox/kube/store.ts';
import { startKubeSandbox } from '../../../sandbox/kube/index.ts';
import type { ControllerName } from '../../../sandbox/kube/controllers/index.ts';
import { settle } from '../replay.ts';
import { keepHistory, send } from '../csi/play.ts';
import type { StreamItem } from '../csi/project.ts';
import { recordedControllers, recordedStack } from '../csi/stack.ts';
import type { NodeRecording } from './recording.ts';

const podType = mustResourceType('v1', 'Pod');
const eventType = mustResourceType('v1', 'Event');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

/** The recorded node's kubelet ran with --sync-frequency=20s (the recording's README). */
export const recordedSyncFrequencySeconds = 20;
const stepMs = 100;

export interface NodePlayed {
  claim: StreamItem[];
  /** Every version of the claim, with the sandbox time it was written at. */
  claimVersions: Array<{ at: number; object: KubeObject }>;
  /** Every version of the pod, with the sandbox time it was written at. */
  podVersions: Array<{ at: number; object: KubeObject }>;
  /** The namespace's Events as the sandbox ends, in the order they were created. */
  events: KubeObject[];
  /** The claim's resourceVersion the patch answered. */
  patchedVersion: number;
}

export async function playNodeRecording(recording: NodeRecording): Promise<NodePlayed> {
  let nowMs = recording.appliedAt - 1000;
  const storageClasses = recordedStack.storageClasses.filter((c) => c.name === 'csi-hostpath');
  const controllers: readonly ControllerName[] = [...recordedControllers, 'kubelet'];
  const kube = await startKubeSandbox({
    seed: { ...recordedStack, storageClasses, kubelet: { nodeName: 'node-1', syncFrequencySeconds: recordedSyncFrequencySeconds } },
    controllers, now: () => new Date(nowMs),
  });
  const history = keepHistory(kube);
  const claimVersions: NodePlayed['claimVersions'] = [];
  const podVersions: NodePlayed['podVersions'] = [];
  kube.store.onChange((change) => {
    if (change.kind === 'deleted') return;
    if (change.type === podType) podVersions.push({ at: nowMs, object: structuredClone(change.object) });
    if (change.type === pvcType && change.object.metadata.name === recording.claimName) claimVersions.push({ at: nowMs, object: structuredClone(change.object) });
  });
  const namespace = recording.statefulSet.metadata.namespace ?? 'default';
  const runUntil = (endMs: number): void => {
    while (nowMs < endMs) {
      nowMs = Math.min(nowMs + stepMs, endMs);
      settle(kube);
    }
  };
  try {
    await send(kube, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    runUntil(recording.appliedAt - 100);
    const created = await send(kube, 'POST', `/apis/apps/v1/namespaces/${namespace}/statefulsets`, recording.statefulSet);
    if (created.status !== 201) throw new Error(`the recorded StatefulSet was refused: ${created.status} ${created.message}`);
    runUntil(recording.patch.at);
    const path = `/api/v1/namespaces/${recording.patch.namespace}/persistentvolumeclaims/${recording.patch.claim}`;
    const patched = await send(kube, 'PATCH', path, recording.patch.body, 'application/merge-patch+json');
    if (patched.status !== 200) throw new Error(`the recorded patch was refused: ${patched.status} ${patched.message}`);
    const patchedVersion = Number(kube.store.peek(pvcType, recording.patch.namespace, recording.patch.claim)?.metadata.resourceVersion);
    runUntil(recording.endedAt);
    const events = [...kube.store.peekList(eventType, namespace)].sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
    return { claim: history.streamOf(recording.claimName), claimVersions, podVersions, events, patchedVersion };
  } finally {
    await kube.close();
  }
}
