// Plays a CSI recording's commands (commands.txt, in order, scenario after scenario: they ran on one cluster) against a
// sandbox configured as the recorded stack, ticking its controllers until nothing changes after each; keeps every
// version of every claim and volume the sandbox wrote, and checks each command's recorded output (a patch's answer, an
// Event listing, a volume read) against the sandbox's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../../sandbox/kube/store.ts';
import { settle } from '../replay.ts';
import { compareClaimJsonPath, compareEventListing, compareVolume } from './outputs.ts';
import { viewOfObject, type StreamItem } from './project.ts';
import type { Command, Scenario } from './recording.ts';
import { recordedControllers, recordedStack, recordingStart } from './stack.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');

export interface CommandOutcome {
  scenario: string;
  line: string;
  /** What was compared: `answer`, `events <object>`, `volume <name>`. */
  check: string;
  differences: string[];
}

interface History {
  claims: Array<{ rv: number; name: string; object: KubeObject }>;
  volumes: Array<{ rv: number; claim: string | undefined; object: KubeObject }>;
}

export interface Replayed {
  outcomes: CommandOutcome[];
  /** Every version of the claim and changes of its volume, in write order. */
  streamOf(claim: string): StreamItem[];
  /** The claim each recorded volume was provisioned for (volumes are named after their claim's uid). */
  volumeClaims: Map<string, string>;
}

export async function replayScenarios(scenarios: readonly Scenario[]): Promise<Replayed> {
  let nowMs = recordingStart;
  const kube = await startKubeSandbox({ seed: recordedStack, controllers: recordedControllers, now: () => new Date(nowMs) });
  const history = keepHistory(kube);
  const outcomes: CommandOutcome[] = [];
  const volumeClaims = new Map<string, string>();
  try {
    for (const scenario of scenarios) {
      for (const [claim, lines] of scenario.watches) {
        const recorded = lines.find((l) => l.spec.volumeName !== null)?.spec.volumeName;
        if (recorded) volumeClaims.set(recorded, claim);
      }
      for (const command of scenario.commands) {
        if (command.notedAt !== undefined) nowMs = Math.max(nowMs, Date.parse(`${command.notedAt}Z`));
        nowMs += 1000;
        const results = await runCommand(kube, scenario, command, volumeClaims);
        for (const result of results) outcomes.push({ scenario: scenario.name, line: command.line, ...result });
        settle(kube);
      }
    }
  } finally {
    await kube.close();
  }
  return { outcomes, volumeClaims, streamOf: history.streamOf };
}

/** From now on, every version of every claim and volume the sandbox writes: `streamOf` a claim, in write order. */
export function keepHistory(kube: KubeSandbox): { streamOf: (claim: string) => StreamItem[] } {
  const history: History = { claims: [], volumes: [] };
  kube.store.onChange((change) => {
    if (change.kind === 'deleted') return;
    const rv = Number(change.object.metadata.resourceVersion);
    if (change.type === pvcType) history.claims.push({ rv, name: change.object.metadata.name, object: structuredClone(change.object) });
    if (change.type === pvType) history.volumes.push({ rv, claim: (change.object.spec?.claimRef as { name?: string } | undefined)?.name, object: structuredClone(change.object) });
  });
  return { streamOf: (claim) => streamOf(history, claim) };
}

function streamOf(history: History, claim: string): StreamItem[] {
  const items: StreamItem[] = [
    ...history.claims.filter((c) => c.name === claim).map((c) => ({ rv: c.rv, claim: viewOfObject(c.object as Parameters<typeof viewOfObject>[0]) })),
    ...history.volumes.filter((v) => v.claim === claim).map((v) => ({
      rv: v.rv,
      volume: { capacity: (v.object.spec?.capacity as Record<string, string> | undefined)?.storage, volumeAttributesClassName: (v.object.spec?.volumeAttributesClassName as string | undefined) ?? null },
    })),
  ];
  return items.sort((a, b) => a.rv - b.rv);
}

const patchCommand = /^kubectl patch pvc -n (\S+) (\S+)(?: -v=\d+)? --type merge -p '?(\{.*\})'?(?: -o json)?(?: 2>&1.*)?$/;

async function runCommand(kube: KubeSandbox, scenario: Scenario, command: Command, volumeClaims: Map<string, string>): Promise<Array<{ check: string; differences: string[] }>> {
  const results: Array<{ check: string; differences: string[] }> = [];
  for (const part of command.line.split('; ')) {
    let match: RegExpExecArray | null;
    if ((match = /^kubectl create namespace (\S+)$/.exec(part))) {
      await send(kube, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: match[1] } });
    } else if ((match = /^kubectl apply -f (\S+)$/.exec(part))) {
      const object = load(readFileSync(join(scenario.dir, match[1] ?? ''), 'utf8')) as KubeObject;
      const namespace = object.metadata.namespace ?? 'default';
      const path = object.kind === 'StatefulSet' ? `/apis/apps/v1/namespaces/${namespace}/statefulsets` : `/api/v1/namespaces/${namespace}/persistentvolumeclaims`;
      const answer = await send(kube, 'POST', path, object);
      results.push({ check: 'answer', differences: answer.status === 201 ? [] : [`recorded created, sandbox ${answer.status} ${answer.message}`] });
    } else if ((match = patchCommand.exec(part))) {
      const answer = await send(kube, 'PATCH', `/api/v1/namespaces/${match[1] ?? ''}/persistentvolumeclaims/${match[2] ?? ''}`, JSON.parse(match[3] ?? '{}'), 'application/merge-patch+json');
      const expected = expectedAnswer(command.output, match[2] ?? '');
      if (expected === undefined) continue; // the recorder filtered its output away; the request still ran
      const actual = answer.status === 200 ? 'patched' : `${answer.status} ${answer.message}`;
      results.push({ check: 'answer', differences: actual === expected ? [] : [`recorded ${expected}, sandbox ${actual}`] });
    } else if ((match = /^kubectl delete pvc -n (\S+) (\S+) --wait=true$/.exec(part))) {
      await send(kube, 'DELETE', `/api/v1/namespaces/${match[1] ?? ''}/persistentvolumeclaims/${match[2] ?? ''}`);
      settle(kube);
    } else if (/^kubectl get events /.test(part)) {
      results.push(compareEventListing(kube, part, command.output));
    } else if ((match = /^kubectl get pv (pvc-\S+)( -o yaml)?$/.exec(part))) {
      results.push(compareVolume(kube, match[1] ?? '', match[2] !== undefined, command.output, volumeClaims));
    } else if ((match = /^kubectl get pvc -n (\S+) (\S+) -o jsonpath=(\S+)$/.exec(part))) {
      results.push(compareClaimJsonPath(kube, match[1] ?? '', match[2] ?? '', match[3] ?? '', command.output));
    }
    // Other reads are not compared: claim tables (the watches record every version in full), the classes (seeded as
    // read), and the StatefulSet's and its pods' status (the recorded cluster ran no scheduler or kubelet; the
    // sandbox's StatefulSet controller is held to the API transcripts instead).
  }
  return results;
}

/** What the recorded output says the server answered a patch: `patched`, or `422 <Status message>`. */
function expectedAnswer(output: readonly string[], name: string): string | undefined {
  for (const line of output) {
    if (line === `persistentvolumeclaim/${name} patched`) return 'patched';
    const invalid = /^The PersistentVolumeClaim "(.+)" is invalid: (.*)$/.exec(line);
    if (invalid) return `422 PersistentVolumeClaim "${invalid[1] ?? ''}" is invalid: ${invalid[2] ?? ''}`;
    if (line.trim().startsWith('{"kind":"Status"')) {
      const status = JSON.parse(line.trim()) as { code: number; message: string };
      return `${status.code} ${status.message}`;
    }
  }
  return undefined;
}

export async function send(kube: KubeSandbox, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; message: string }> {
  const token = kube.kubeConfig().getCurrentUser()?.token ?? '';
  const response = await fetch(`${kube.url}${path}`, {
    method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json() as { message?: string };
  return { status: response.status, message: answer.message ?? '' };
}
