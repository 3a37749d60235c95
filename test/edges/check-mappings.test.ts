// Issue 30, item 4: `check` finds every mapping mistake `plan` would find later, against the Kubernetes sandbox seeded
// from examples/ (the chart renders analytics/vlogs-victoria-logs-single-server with template server-volume). A size
// source naming a set that does not exist, or a template the set lacks, is an error with the name it probably meant,
// and plan blocks it (exit 1) instead of noting it missing (exit 0); a template that does not exist lists no PVC.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';

describe('check and plan: size sources naming what the cluster does not have', () => {
  let sandboxes: CheckSandboxes;
  let wrongSet: string;
  let wrongTemplate: string;

  before(async () => {
    sandboxes = await startCheckSandboxes();
    // The mistake the issue saw: the mapping says `...-server`, the chart renders `...-single-server`.
    wrongSet = await sandboxes.configFile('wrong-set', { edit: (t) => t.replace('"statefulSet":"analytics/vlogs-victoria-logs-single-server"', '"statefulSet":"analytics/vlogs-victoria-logs-server"') });
    wrongTemplate = await sandboxes.configFile('wrong-template', { edit: (t) => t.replace('"template":"server-volume"', '"template":"server-volumes"') });
  });
  after(() => sandboxes.close());

  it('check errors on a mapping to a StatefulSet that does not exist, naming the one that does', async () => {
    const checked = await sandboxes.check(wrongSet);
    assert.equal(checked.code, 1, checked.text);
    assert.deepEqual(checked.errors.map((e) => [e.id, e.subject]), [['cluster.size-sources', 'apps/victoria-logs/values-prod.yaml:11']]);
    const [mistake] = checked.errors;
    assert.match(mistake?.message ?? '', /^the size source at apps\/victoria-logs\/values-prod\.yaml:11 \(server\.persistentVolume\.size\) names StatefulSet analytics\/vlogs-victoria-logs-server, which is not in the cluster \(namespace analytics has clickhouse, vlogs-victoria-logs-single-server\): its value is never applied$/);
    assert.match(mistake?.fix ?? '', /^did you mean analytics\/vlogs-victoria-logs-single-server\? Set the mapping's statefulSet to namespace\/name as the chart renders it/);
  });

  it('check errors on a mapping to a template the StatefulSet does not have', async () => {
    const checked = await sandboxes.check(wrongTemplate);
    assert.equal(checked.code, 1, checked.text);
    assert.deepEqual(checked.errors.map((e) => e.id), ['cluster.size-sources']);
    assert.match(checked.errors[0]?.message ?? '', /names volumeClaimTemplate server-volumes, which the live StatefulSet analytics\/vlogs-victoria-logs-single-server does not have \(it has server-volume\)/);
    assert.match(checked.errors[0]?.fix ?? '', /^did you mean server-volume\?/);
  });

  it('check says ok for the mapping as the examples write it', async () => {
    const checked = await sandboxes.check(await sandboxes.configFile('good'));
    assert.deepEqual(checked.errors, [], checked.text);
    assert.match(checked.text, /ok +cluster\.size-sources +size sources: every size source names a StatefulSet and a volumeClaimTemplate the cluster has \(1 mapping\)/);
  });

  it('plan blocks the mapping to a set that does not exist, loudly, and exits 1', async () => {
    const planned = await sandboxes.cli(['plan', '--config', wrongSet]);
    assert.equal(planned.code, 1, planned.stdout + planned.stderr);
    // A set the cluster does not have has no replicas to count, nor volumes done (issue 37 item 11: not `? replicas`, `0/0 done`).
    assert.match(planned.stdout, /x analytics\/vlogs-victoria-logs-server \(OrderedReady\): blocked/);
    assert.doesNotMatch(planned.stdout, /\? replicas|0\/0 done/);
    assert.match(planned.stdout, /blocked: the size source at apps\/victoria-logs\/values-prod\.yaml:11 .* which is not in the cluster .*; did you mean analytics\/vlogs-victoria-logs-single-server\?/);
    assert.doesNotMatch(planned.stdout, /missing-in-cluster|this tool never creates StatefulSets/);
  });

  it('plan blocks the mapping to a template the set lacks, and lists no PVC that will never exist', async () => {
    const planned = await sandboxes.cli(['plan', '--config', wrongTemplate]);
    assert.equal(planned.code, 1, planned.stdout + planned.stderr);
    assert.match(planned.stdout, /blocked: the size source at .* names volumeClaimTemplate server-volumes/);
    assert.doesNotMatch(planned.stdout, /server-volumes-vlogs-victoria-logs-single-server-0|not created yet/);
  });
});
