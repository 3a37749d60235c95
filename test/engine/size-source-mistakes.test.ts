// A size source naming what the cluster does not have: the plan blocks it at the value's line with the name it
// probably meant (a mapped set is rendered by a chart, so one not there is a mistake, unlike a manifest's set not
// created yet), lists no PVC for a template that does not exist, and `check`'s judge says the same before any plan.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SizeSource } from '../../functions/domain/size-sources.ts';
import { closestName } from '../../functions/domain/similar-names.ts';
import { assembleDesired, readTargetDesired } from '../../functions/engine/desired/desired-input.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { reportFromPlan } from '../../functions/engine/report/pass-report.ts';
import { judgeSizeSourceTargets } from '../../functions/check/size-source-targets.ts';
import { desiredSet, livePvc, liveSet, snapshot } from './builders.ts';

const values = 'server:\n  persistentVolume:\n    size: 10Gi\n';
const files = new Map([['apps/vlogs/values.yaml', values]]);

function desiredFor(overrides: Partial<SizeSource>): ReturnType<typeof readTargetDesired> {
  const source: SizeSource = { file: 'apps/vlogs/values.yaml', path: 'server.persistentVolume.size', statefulSet: 'logs/vlogs-server', template: 'server-volume', ...overrides };
  return readTargetDesired(files, { globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [source] });
}

// The chart renders `vlogs-victoria-logs-single-server` with template `server-volume`, one replica.
const world = snapshot([{
  namespace: 'logs',
  statefulSets: [liveSet({ namespace: 'logs', name: 'vlogs-victoria-logs-single-server', templateNames: ['server-volume'], replicas: 1, size: '5Gi' }), liveSet({ namespace: 'logs', name: 'loki' })],
  pvcs: [livePvc('server-volume-vlogs-victoria-logs-single-server-0', { namespace: 'logs', request: '5Gi' })],
}]);

describe('a size source naming a StatefulSet the cluster does not have', () => {
  it('is blocked at the value\'s line with the name it probably meant', () => {
    const desired = desiredFor({ statefulSet: 'logs/vlogs-victoria-logs-server' });
    const [plan] = planTarget(assembleDesired(desired, world), world, { allowedNamespaces: ['logs'] });
    assert.equal(plan?.templates[0]?.action, 'blocked');
    assert.equal(plan?.templates[0]?.reasons[0]?.code, 'statefulset-not-in-cluster');
    assert.equal(plan?.templates[0]?.reasons[0]?.message,
      'the size source at apps/vlogs/values.yaml:3 (server.persistentVolume.size) names StatefulSet logs/vlogs-victoria-logs-server, which is not in the cluster '
      + '(namespace logs has loki, vlogs-victoria-logs-single-server): its value is never applied; did you mean logs/vlogs-victoria-logs-single-server? '
      + 'Set the mapping\'s statefulSet to namespace/name as the chart renders it (`kubectl get statefulsets -n logs`)');
    assert.ok(plan);
    const report = reportFromPlan(plan, 'c0ffee');
    assert.equal(report.outcome, 'blocked');
    assert.equal(report.templates[0]?.storageLocation.line, 3, 'the PR check annotates the value\'s line');
  });

  it('names no guess when no name is close, and a manifest\'s set not created yet stays a note', () => {
    const [plan] = planTarget(assembleDesired(desiredFor({ statefulSet: 'logs/postgres' }), world), world, { allowedNamespaces: ['logs'] });
    assert.doesNotMatch(plan?.templates[0]?.reasons[0]?.message ?? '', /did you mean/);
    assert.match(plan?.templates[0]?.reasons[0]?.message ?? '', /; set the mapping's statefulSet/);
    const [manifest] = planTarget([desiredSet({ namespace: 'logs', name: 'postgres' })], world, { allowedNamespaces: ['logs'] });
    assert.equal(manifest?.outcome, 'missing-in-cluster');
  });
});

describe('a size source naming a template the StatefulSet does not have', () => {
  it('is blocked, and no PVC of that template is said to be "not created yet"', () => {
    const desired = desiredFor({ statefulSet: 'logs/vlogs-victoria-logs-single-server', template: 'server-volum' });
    const [plan] = planTarget(assembleDesired(desired, world), world, { allowedNamespaces: ['logs'] });
    assert.match(plan?.templates[0]?.reasons[0]?.message ?? '', /names volumeClaimTemplate server-volum, which the live StatefulSet logs\/vlogs-victoria-logs-single-server does not have \(it has server-volume\): its value is never applied; did you mean server-volume\?/);
    assert.ok(plan);
    const report = reportFromPlan(plan, 'c0ffee');
    assert.deepEqual(report.templates[0]?.pvcs, []);
  });
});

describe('check\'s judge of size sources', () => {
  it('errors on a missing set and a missing template with the fix, and says ok when both exist', () => {
    const wrongSet = judgeSizeSourceTargets(desiredFor({ statefulSet: 'logs/vlogs-victoria-logs-server' }), world.namespaces, { allow: ['logs'], state: 'sts-volume-gitops' });
    assert.deepEqual(wrongSet.map((r) => [r.level, r.id, r.subject]), [['error', 'cluster.size-sources', 'apps/vlogs/values.yaml:3']]);
    assert.match(wrongSet[0]?.fix ?? '', /^did you mean logs\/vlogs-victoria-logs-single-server\? Set the mapping's statefulSet/);
    const wrongTemplate = judgeSizeSourceTargets(desiredFor({ statefulSet: 'logs/vlogs-victoria-logs-single-server', template: 'data' }), world.namespaces, { allow: ['logs'], state: 'sts-volume-gitops' });
    assert.match(wrongTemplate[0]?.message ?? '', /names volumeClaimTemplate data, which the live StatefulSet .* does not have \(it has server-volume\)/);
    const right = judgeSizeSourceTargets(desiredFor({ statefulSet: 'logs/vlogs-victoria-logs-single-server' }), world.namespaces, { allow: ['logs'], state: 'sts-volume-gitops' });
    assert.deepEqual(right.map((r) => r.level), ['ok']);
    assert.deepEqual(judgeSizeSourceTargets(desiredFor({ statefulSet: 'other/x' }), world.namespaces, { allow: ['logs'], state: 'sts-volume-gitops' }), [], 'a namespace not allowed is source.namespaces\' error');
  });
});

describe('closestName', () => {
  it('finds a name a word or a few letters apart, and nothing for unrelated names', () => {
    assert.equal(closestName('vlogs-victoria-logs-server', ['clickhouse', 'vlogs-victoria-logs-single-server']), 'vlogs-victoria-logs-single-server');
    assert.equal(closestName('analytcs', ['analytics', 'cache']), 'analytics');
    assert.equal(closestName('pg', ['pg-postgresql', 'redis']), undefined);
    assert.equal(closestName('db', ['db']), undefined, 'the name itself is no suggestion');
  });
});
