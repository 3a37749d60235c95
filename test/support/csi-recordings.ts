// The claims and Events real CSI sidecars wrote in front of kube-apiserver v1.34.9 (external-resizer v2.0.0,
// csi-driver-host-path v1.17.1; ../shared/conformance/csi-v1.34.9/README.md), read as the product reads a cluster: each
// recorded PVC version through the Kubernetes adapter's own mapping (toLivePvc), each Event as toPvcEvent makes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { JsonObject, LivePvc, PvcEvent } from '../../functions/domain/live-state.ts';
import { toLivePvc, toPvcEvent } from '../../functions/adapters/kube/map-objects.ts';

const conformanceDir = process.env.KUBE_CONFORMANCE_DIR ?? '/work/shared/conformance';
export const csiRecordingsDir = join(conformanceDir, 'csi-v1.34.9');
const namespace = 'csi-probe';

/** One line of a `*.watch.jsonl`: the parts of a PVC version the recorder kept (spec in part, status whole). */
interface WatchLine {
  t: string;
  rv: string;
  annotations?: Record<string, string> | null;
  deletionTimestamp?: string | null;
  spec: { requests?: Record<string, string>; volumeAttributesClassName?: string | null; volumeMode?: string; volumeName?: string | null };
  status: JsonObject;
}

export interface RecordedPvc {
  /** When the watch saw this version (the recorder's clock, UTC). */
  seenAt: string;
  resourceVersion: string;
  pvc: LivePvc;
}

/** Every version of one claim, in the order the watch saw them (`a/a-mount-2`, `c/c-vac`, ...). */
export function recordedVersions(scenario: string): RecordedPvc[] {
  const [folder, claim] = scenario.split('/');
  if (!folder || !claim) throw new Error(`a recorded claim is named folder/claim, not ${scenario}`);
  return watchedVersions(join(csiRecordingsDir, folder, `${claim}.watch.jsonl`), claim, namespace);
}

/**
 * The claim a real kubelet v1.34.9 grew with its pod running (../shared/conformance/node-v1.34.9/): `data-smoke-0` in
 * `node-smoke`, at a resourceVersion (3336 NodeResizePending, 3422 NodeResizeInProgress, 3423 done).
 */
export function recordedNodePvc(resourceVersion: string): LivePvc {
  const found = watchedVersions(join(conformanceDir, 'node-v1.34.9', 'data-smoke-0.watch-pvc.jsonl'), 'data-smoke-0', 'node-smoke')
    .find((v) => v.resourceVersion === resourceVersion);
  if (!found) throw new Error(`data-smoke-0 has no recorded version ${resourceVersion}`);
  return found.pvc;
}

function watchedVersions(path: string, claim: string, namespace: string): RecordedPvc[] {
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line, index) => {
    let parsed: WatchLine;
    try {
      parsed = JSON.parse(line) as WatchLine;
    } catch (error) {
      throw new Error(`${path}:${index + 1}: not a JSON line`, { cause: error });
    }
    const json: JsonObject = {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: {
        name: claim, namespace, resourceVersion: parsed.rv, uid: `uid-${claim}`, annotations: parsed.annotations ?? {},
        ...(parsed.deletionTimestamp ? { deletionTimestamp: parsed.deletionTimestamp } : {}),
      },
      spec: {
        resources: { requests: parsed.spec.requests ?? {} },
        ...(parsed.spec.volumeAttributesClassName ? { volumeAttributesClassName: parsed.spec.volumeAttributesClassName } : {}),
        ...(parsed.spec.volumeName ? { volumeName: parsed.spec.volumeName } : {}),
        volumeMode: parsed.spec.volumeMode ?? 'Filesystem',
      },
      status: parsed.status,
    };
    return { seenAt: `${parsed.t}Z`, resourceVersion: parsed.rv, pvc: toLivePvc(json) };
  });
}

/** The recorded version of a claim at a resourceVersion. */
export function recordedPvc(scenario: string, resourceVersion: string): LivePvc {
  const found = recordedVersions(scenario).find((v) => v.resourceVersion === resourceVersion);
  if (!found) throw new Error(`${scenario} has no recorded version ${resourceVersion}`);
  return found.pvc;
}

/** The same claim under another name (a replica of a StatefulSet), for tests that need one. */
export function renamed(pvc: LivePvc, name: string): LivePvc {
  return { ...pvc, name, uid: `uid-${name}` };
}

/**
 * The Events `kubectl get events ... -o custom-columns=FIRST:...,LAST:...,COUNT:...,TYPE:...,REASON:...,SRC:...,MSG:...`
 * listed for one claim in a folder's commands.txt (the first listing of it), as the product reads Events.
 */
export function recordedEvents(folder: string, claim: string): PvcEvent[] {
  const lines = readFileSync(join(csiRecordingsDir, folder, 'commands.txt'), 'utf8').split('\n');
  const command = lines.findIndex((line) => line.startsWith('$ kubectl get events') && line.includes(`involvedObject.name=${claim} `) && line.includes('FIRST:'));
  const header = lines[command + 1];
  if (command === -1 || header === undefined) throw new Error(`${folder}/commands.txt lists no Events of ${claim}`);
  const columns = ['FIRST', 'LAST', 'COUNT', 'TYPE', 'REASON', 'SRC', 'MSG'].map((name) => header.indexOf(name));
  if (columns.some((c) => c === -1)) throw new Error(`${folder}/commands.txt: unexpected Event columns: ${header}`);
  const events: PvcEvent[] = [];
  for (const row of lines.slice(command + 2)) {
    if (row.startsWith('$ ') || row.startsWith('# ') || row.trim() === '') break;
    const cell = (i: number): string => row.slice(columns[i], i + 1 < columns.length ? columns[i + 1] : undefined).trim();
    const event: CoreV1Event = {
      metadata: { namespace }, involvedObject: { kind: 'PersistentVolumeClaim', namespace, name: claim },
      firstTimestamp: new Date(cell(0)), lastTimestamp: new Date(cell(1)), count: Number(cell(2)), type: cell(3), reason: cell(4),
      source: { component: cell(5) }, message: cell(6),
    };
    events.push(toPvcEvent(event));
  }
  return events;
}

/** Only the Warnings, as the product lists them (ClusterPort.listPvcWarningEvents). */
export function recordedWarnings(folder: string, claim: string): PvcEvent[] {
  return recordedEvents(folder, claim).filter((e) => e.type === 'Warning');
}
