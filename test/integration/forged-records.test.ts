// Issue 22, item 1: a recreation record this deployment did not write is never acted on. The attack of the security
// review, run as it was found: a user who may only create ConfigMaps in the state namespace writes a record holding a
// privileged StatefulSet (hostPID, a hostPath of `/`) in kube-system, and the engine, under exactly the RBAC
// `sts-volume-gitops rbac` generates for `allow: ['*']` (so it could create there), runs its first pass, and a pass
// after one died holding the Lease. Nothing is created, the ConfigMap stays, and the refusal is loud.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leaseRecordsAnnotation, recordLabel, recordNamespaceLabel, recordTargetLabel } from '../../functions/adapters/kube/map-objects.ts';
import { recreationRecordName } from '../../functions/engine/records/names.ts';
import { maxRefusalsReportedOneByOne } from '../../functions/engine/records/refused.ts';
import { passVerdict } from '../../functions/engine/report/pass-verdict.ts';
import { maxRefusedRecordsListed, refusedRecordCount } from '../../functions/engine/report/pass-report.ts';
import { attacker } from './attacker.ts';
import { allConverged, startHarness, statefulSetReport, types, type Harness } from './harness.ts';
import { leaseName, leavePgAbsentWithRecord, refusalEvents } from './record-scenes.ts';

const privileged = {
  apiVersion: 'apps/v1', kind: 'StatefulSet',
  metadata: { name: 'pwn', namespace: 'kube-system', labels: { app: 'pwn' } },
  spec: {
    serviceName: 'pwn', replicas: 1, selector: { matchLabels: { app: 'pwn' } },
    template: {
      metadata: { labels: { app: 'pwn' } },
      spec: {
        hostPID: true,
        containers: [{ name: 'main', image: 'busybox:1.36', securityContext: { privileged: true }, volumeMounts: [{ name: 'host', mountPath: '/host' }] }],
        volumes: [{ name: 'host', hostPath: { path: '/' } }],
      },
    },
  },
};

/** The record as the finding wrote it: the labels and name of a real one, `namespace: db` (allowed), the target elsewhere. */
function forgedRecord(h: Harness, data: Record<string, string> = {}): { metadata: Record<string, unknown>; data: Record<string, string> } {
  return {
    metadata: {
      name: recreationRecordName('test', 'db', 'pwn'), namespace: h.stateNamespace,
      labels: { [recordLabel]: 'true', [recordTargetLabel]: 'test', [recordNamespaceLabel]: 'db' },
    },
    data: { namespace: 'db', statefulSet: 'pwn', oldUid: 'f0f0f0f0-0000-0000-0000-000000000000', target: JSON.stringify(privileged), ...data },
  };
}

function nothingCreated(h: Harness): void {
  assert.equal(h.kube.store.get(types.sts, 'kube-system', 'pwn'), undefined, 'no StatefulSet in kube-system');
  assert.equal(h.kube.store.get(types.sts, 'db', 'pwn'), undefined, 'none in the namespace the record claims either');
  assert.deepEqual(h.kube.store.list(types.pod, 'kube-system'), []);
  assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 1, 'the forged record is left in place');
}

describe('a forged recreation record', () => {
  it('is refused on the first pass of a target (no Lease yet): nothing is created, and the refusal is loud', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }], allow: ['*'] });
    try {
      await (await attacker(h)).createNamespacedConfigMap({ namespace: h.stateNamespace, body: forgedRecord(h) });
      const report = await h.pass();
      h.kube.tick(3);
      nothingCreated(h);
      assert.deepEqual(report.refusedRecords, [{
        configMap: `${h.stateNamespace}/${recreationRecordName('test', 'db', 'pwn')}`, statefulSet: 'db/pwn',
        reason: 'it carries no MAC: written by a version before records were signed, or by someone other than this deployment',
      }]);
      const [event] = refusalEvents(h);
      assert.equal((event as { type?: string } | undefined)?.type, 'Warning');
      assert.equal((event as { involvedObject?: { kind?: string } } | undefined)?.involvedObject?.kind, 'ConfigMap');
      // Every pass lists the state namespace, whatever the Lease says (here: no recreation in progress), and says it again.
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseRecordsAnnotation], 'none');
      const again = await h.pass();
      assert.equal(again.refusedRecords?.length, 1);
      assert.equal(refusalEvents(h).length, 2);
      nothingCreated(h);
    } finally {
      await h.close();
    }
  });

  it('is refused by a pass after one died holding the Lease (the busy path), whatever MAC it claims', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }], allow: ['*'] });
    try {
      h.kube.store.create(types.lease, {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: leaseName, namespace: h.stateNamespace },
        spec: { holderIdentity: 'timed-out-lambda', leaseDurationSeconds: 300, renewTime: new Date().toISOString().replace('Z', '000Z') },
      });
      await (await attacker(h)).createNamespacedConfigMap({ namespace: h.stateNamespace, body: forgedRecord(h, { mac: Buffer.alloc(32, 7).toString('base64') }) });
      const report = await h.pass({ holder: 'me' });
      assert.equal(report.outcome, 'busy');
      h.kube.tick(3);
      nothingCreated(h);
      assert.match(report.refusedRecords?.[0]?.reason ?? '', /its MAC does not verify/);
      assert.equal(refusalEvents(h).length, 1);
    } finally {
      await h.close();
    }
  });

  it('cannot reuse the MAC of a genuine record: a copy with another target, or under another name, is refused', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }], allow: ['*'] });
    try {
      // A pass that dies after writing its record and deleting the set leaves a genuine, signed record behind.
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      await h.pass({ maxWaitMs: 0 });
      const [genuine] = h.kube.store.list(types.configMap, h.stateNamespace);
      assert.ok(genuine?.data);
      const data = genuine.data as Record<string, string>;
      assert.ok(data.mac, 'the pass signed its record');
      const mallory = await attacker(h);
      // Its MAC over another object (the privileged set, claimed as db/pg), and the genuine record under another name.
      const swapped = { ...privileged, metadata: { ...privileged.metadata, name: 'pg', namespace: 'db' } };
      await mallory.createNamespacedConfigMap({
        namespace: h.stateNamespace,
        body: { metadata: { ...forgedRecord(h).metadata, name: recreationRecordName('test', 'db', 'pwn') }, data: { ...data, target: JSON.stringify(swapped) } },
      });
      await mallory.createNamespacedConfigMap({
        namespace: h.stateNamespace,
        body: { metadata: { ...forgedRecord(h).metadata, name: `${recreationRecordName('test', 'db', 'pg')}-copy` }, data },
      });
      h.kube.tick(1);
      const report = await h.pass();
      const reasons = new Map((report.refusedRecords ?? []).map((r) => [r.configMap.split('/')[1], r.reason]));
      assert.match(reasons.get(recreationRecordName('test', 'db', 'pwn')) ?? '', /its MAC does not verify/);
      assert.match(reasons.get(`${recreationRecordName('test', 'db', 'pg')}-copy`) ?? '', /its MAC does not verify/);
      assert.equal(reasons.size, 2, 'the genuine record is not refused');
      const pg = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(pg, 'the genuine record was resumed');
      const podSpec = (pg.spec as { template: { spec: Record<string, unknown> } }).template.spec;
      assert.equal(podSpec.hostPID, undefined, 'created from the genuine record, not the swapped one');
      assert.equal(h.kube.store.get(types.sts, 'kube-system', 'pwn'), undefined);
      assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 2, 'the two forgeries stay; the genuine one is done');
    } finally {
      await h.close();
    }
  });
});

describe('a forged record under the name of a set\'s own record', () => {
  it('is kept as evidence: the set\'s template update is blocked naming it, nothing is overwritten or deleted', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const uid = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid;
      const forged = forgedRecord(h);
      const name = recreationRecordName('test', 'db', 'pg');
      await (await attacker(h)).createNamespacedConfigMap({ namespace: h.stateNamespace, body: { ...forged, metadata: { ...forged.metadata, name } } });
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      for (let pass = 0; pass < 2; pass++) {
        const report = await h.pass();
        assert.equal(report.refusedRecords?.[0]?.configMap, `${h.stateNamespace}/${name}`, 'refused and reported');
        const pg = statefulSetReport(report, 'pg');
        assert.equal(pg.outcome, 'blocked');
        assert.equal(pg.blockedBy, 'record-name-taken', 'counted under its own reason, not as a missing key');
        assert.deepEqual(passVerdict({ target: 'test', report, error: undefined }).problems.filter((p) => p.kind === 'statefulset').map((p) => p.reason), ['record-name-taken']);
        assert.match(pg.notes.join('\n'), new RegExp(`ConfigMap ${h.stateNamespace}/${name} .*already exists.*delete it`));
        assert.deepEqual(h.kube.store.get(types.configMap, h.stateNamespace, name)?.data, forged.data, 'not overwritten');
        assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid, uid, 'the set was not deleted');
      }
      // A person inspects it and deletes it: the template update goes through.
      h.kube.store.remove(types.configMap, h.stateNamespace, name);
      await h.converge(allConverged);
      assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 0);
    } finally {
      await h.close();
    }
  });
});

describe('a flood of forged records', () => {
  it('costs a pass a bounded number of Warning Events and a bounded report that counts every one, and a genuine recreation is finished', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      // A pass saves its record, orphan-deletes pg and dies before the create; then mallory plants forgeries: some
      // through the API, as she would, and many more straight into the store (the same ConfigMaps, sooner).
      await leavePgAbsentWithRecord(h);
      const mallory = await attacker(h);
      const throughApi = 3 * maxRefusalsReportedOneByOne;
      const planted = 1000;
      for (let i = 0; i < planted; i++) {
        const forged = forgedRecord(h);
        const body = { ...forged, metadata: { ...forged.metadata, name: recreationRecordName('test', 'db', `pwn-${i}`) } };
        if (i < throughApi) await mallory.createNamespacedConfigMap({ namespace: h.stateNamespace, body });
        else h.kube.store.create(types.configMap, { apiVersion: 'v1', kind: 'ConfigMap', ...body });
      }
      h.kube.requestLog.reset();
      const report = await h.pass();
      assert.equal(report.refusedRecords?.length, maxRefusedRecordsListed, 'the report lists the first ones');
      assert.equal(report.refusedRecordsLeftOut, planted - maxRefusedRecordsListed, 'and counts the rest');
      assert.equal(refusedRecordCount(report), planted, 'the true total (the metric)');
      assert.ok(JSON.stringify(report).length < 20_000, `a bounded report, not one that grows with the flood (${JSON.stringify(report).length} characters)`);
      const problems = passVerdict({ target: 'test', report, error: undefined }).problems.filter((p) => p.kind === 'recreation-record');
      assert.equal(problems.length, maxRefusedRecordsListed + 1, 'one problem (one log line) per listed record and one for the rest');
      assert.match(problems.at(-1)?.message ?? '', new RegExp(`^${planted - maxRefusedRecordsListed} more recreation records refused, left out of the report, which lists the first ${maxRefusedRecordsListed}: \`kubectl get configmaps -n ${h.stateNamespace}\` shows them all$`));
      const events = h.kube.requestLog.writes().filter((w) => w.resource === 'events' && w.namespace === h.stateNamespace);
      assert.equal(events.length, maxRefusalsReportedOneByOne, 'one Warning Event each for the first ones, not one per planted ConfigMap');
      assert.equal(refusalEvents(h).length, maxRefusalsReportedOneByOne);
      assert.match(report.notes.join('\n'), new RegExp(`${planted - maxRefusalsReportedOneByOne} more recreation records refused, nothing done \\(the report's refusedRecords lists the first ${maxRefusedRecordsListed} and counts the rest in refusedRecordsLeftOut;`));
      assert.ok(h.kube.store.get(types.sts, 'db', 'pg'), 'the genuine recreation was finished in the same pass');
    } finally {
      await h.close();
    }
  });
});

describe('a deployment without a record key', () => {
  it('recreates nothing: the resize is blocked with the setting to make, and no record is written', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }], noRecordKey: true });
    try {
      const uid = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid;
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '20Gi' } });
      const report = await h.pass();
      const pg = report.statefulSets.find((s) => s.name === 'pg');
      assert.equal(pg?.outcome, 'blocked');
      assert.equal(pg?.blockedBy, 'record-key-missing');
      assert.match(pg?.notes.join('\n') ?? '', /set targets\[\]\.recordKey in the config/);
      assert.deepEqual(h.kube.store.list(types.configMap, h.stateNamespace), []);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid, uid, 'the set was not deleted');
    } finally {
      await h.close();
    }
  });
});
