// Server-side printing in the Kubernetes sandbox: the Tables `kubectl get` asks for, in lists, gets and watches.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { humanAge } from '../../../sandbox/kube/tables.ts';
import { kubectlAvailable, pgStatefulSet } from './fixtures.ts';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Table {
  kind: string;
  metadata: { resourceVersion?: string; continue?: string };
  columnDefinitions?: Array<{ name: string; priority: number }>;
  rows: Array<{ cells: unknown[]; object: { kind: string; metadata: { name: string } } }>;
}

describe('humanAge', () => {
  it('words durations as kubectl shows them', () => {
    const now = new Date('2026-01-10T00:00:00Z');
    const ago = (seconds: number): string => humanAge(new Date(now.getTime() - seconds * 1000).toISOString(), now);
    assert.deepEqual([ago(5), ago(119), ago(200), ago(600), ago(42 * 60), ago(5 * 3600 + 600), ago(30 * 3600), ago(3 * 86400 + 4 * 3600), ago(120 * 86400), ago(800 * 86400)],
      ['5s', '119s', '3m20s', '10m', '42m', '5h10m', '30h', '3d4h', '120d', '2y']);
    assert.equal(humanAge(undefined, now), '<unknown>');
  });
});

describe('Kubernetes sandbox Tables', () => {
  let kube: KubeSandbox;
  let get: (path: string, accept?: string) => Promise<Response>;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [pgStatefulSet(2)] } });
    const token = kube.kubeConfig().getCurrentUser()?.token ?? '';
    get = (path, accept = tableAccept) => fetch(`${kube.url}${path}`, { headers: { Authorization: `Bearer ${token}`, Accept: accept } });
  });
  after(() => kube.close());

  it('prints PVCs with the real columns, capacity among them, and keeps the list\'s paging', async () => {
    const table = await (await get('/api/v1/namespaces/db/persistentvolumeclaims?limit=1')).json() as Table;
    assert.equal(table.kind, 'Table');
    assert.deepEqual(table.columnDefinitions?.map((c) => c.name), ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
    assert.equal(table.columnDefinitions?.find((c) => c.name === 'VolumeMode')?.priority, 1);
    assert.equal(table.rows.length, 1);
    const [row] = table.rows;
    assert.deepEqual([row?.cells[0], row?.cells[1], row?.cells[3], row?.cells[4], row?.cells[5]], ['data-pg-0', 'Bound', '10Gi', 'RWO', 'standard']);
    assert.deepEqual(row?.object.kind, 'PartialObjectMetadata');
    assert.ok(table.metadata.continue, 'the continue token survives');
  });

  it('prints one object, StatefulSets and Pods with their readiness; plain JSON without the Table media type', async () => {
    const sts = await (await get('/apis/apps/v1/namespaces/db/statefulsets/pg')).json() as Table;
    assert.deepEqual(sts.rows.map((r) => r.cells.slice(0, 2)), [['pg', '2/2']]);
    const pods = await (await get('/api/v1/namespaces/db/pods')).json() as Table;
    assert.deepEqual(pods.rows.map((r) => r.cells.slice(0, 4)), [['pg-0', '1/1', 'Running', '0'], ['pg-1', '1/1', 'Running', '0']]);
    const plain = await (await get('/api/v1/namespaces/db/pods', 'application/json')).json() as { kind: string };
    assert.equal(plain.kind, 'PodList');
  });

  it('sends watch events as Table rows, the column definitions with the first only', async () => {
    const controller = new AbortController();
    const response = await fetch(`${kube.url}/api/v1/namespaces/db/persistentvolumeclaims?watch=true`, {
      headers: { Authorization: `Bearer ${kube.kubeConfig().getCurrentUser()?.token ?? ''}`, Accept: tableAccept }, signal: controller.signal,
    });
    let buffered = '';
    // Two whole events are enough: the first with its columns, the second without.
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
      buffered += Buffer.from(chunk).toString('utf8');
      if (buffered.split('\n').length >= 3) break;
    }
    controller.abort();
    const events = buffered.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; object: Table });
    assert.equal(events[0]?.type, 'ADDED');
    assert.ok(events[0]?.object.columnDefinitions);
    assert.equal(events[1]?.object.columnDefinitions, undefined);
    assert.equal(events[1]?.object.rows[0]?.cells[0], 'data-pg-1');
  });

  it('gives kubectl get its columns (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const { stdout } = await promisify(execFile)('kubectl', ['get', 'pvc', '-n', 'db'], { env: { ...process.env, KUBECONFIG: kube.kubeconfigPath } });
    assert.match(stdout, /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS/);
    assert.match(stdout, /data-pg-1\s+Bound\s+pvc-\S+\s+10Gi\s+RWO\s+standard/);
  });
});

describe('Kubernetes sandbox Tables of Events', () => {
  const clock = new Date('2026-03-01T12:00:00Z');

  it('prints Events with kubectl\'s columns, core/v1 and events.k8s.io/v1 alike (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE)', async (t) => {
    const kube = await startKubeSandbox({ now: () => clock, seed: { namespaces: ['db'] } });
    t.after(() => kube.close());
    const post = (path: string, body: unknown): Promise<Response> => fetch(`${kube.url}${path}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    const get = async (path: string): Promise<Table> => await (await fetch(`${kube.url}${path}`, { headers: { Accept: tableAccept } })).json() as Table;
    const at = (secondsAgo: number): string => new Date(clock.getTime() - secondsAgo * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    assert.equal((await post('/api/v1/namespaces/db/events', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'data-pg-0.resize' }, type: 'Warning', reason: 'VolumeResizeFailed',
      message: 'resize volume failed: exceeds maximum  ', involvedObject: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'db', name: 'data-pg-0' },
      source: { component: 'external-resizer' }, firstTimestamp: at(300), lastTimestamp: at(30), count: 4,
    })).status, 201);
    assert.equal((await post('/apis/events.k8s.io/v1/namespaces/db/events', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'pg.updated' }, type: 'Normal', reason: 'TemplateUpdated', note: 'volumeClaimTemplates resized',
      regarding: { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'db', name: 'pg' }, eventTime: `${at(90).slice(0, -1)}.000000Z`,
      reportingController: 'sts-volume-gitops', reportingInstance: 'pass-1', action: 'Update',
    })).status, 201);
    const core = await get('/api/v1/namespaces/db/events');
    assert.deepEqual(core.columnDefinitions?.map((c) => `${c.name}:${c.priority}`), [
      'Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1',
    ]);
    const resize = core.rows.find((r) => r.object.metadata.name === 'data-pg-0.resize');
    assert.deepEqual(resize?.cells, ['30s', 'Warning', 'VolumeResizeFailed', 'persistentvolumeclaim/data-pg-0', '', 'external-resizer', 'resize volume failed: exceeds maximum', '5m', 4, 'data-pg-0.resize']);
    const modern = await get('/apis/events.k8s.io/v1/namespaces/db/events/pg.updated');
    assert.deepEqual(modern.rows[0]?.cells, ['90s', 'Normal', 'TemplateUpdated', 'statefulset/pg', '', 'sts-volume-gitops, pass-1', 'volumeClaimTemplates resized', '90s', 1, 'pg.updated']);
  });
});
