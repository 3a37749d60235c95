// `namespaces.allow: ["*"]` means every namespace but the target's state namespace (issue 28 item 6): a StatefulSet
// there is never planned, dry-run or resized, whatever the allow list says. Pure: planTarget over builders' data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNamespaceAllowed } from '../../functions/engine/plan/allowed-namespaces.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { desiredSet, pgWorld } from './builders.ts';

describe('the namespaces a target may resize StatefulSets in', () => {
  it('are those allow lists, or with * every namespace but the state namespace', () => {
    assert.equal(isNamespaceAllowed('db', { allow: ['db'], state: 'sts-volume-gitops' }), true);
    assert.equal(isNamespaceAllowed('cache', { allow: ['db'], state: 'sts-volume-gitops' }), false);
    assert.equal(isNamespaceAllowed('kube-system', { allow: ['*'], state: 'sts-volume-gitops' }), true);
    assert.equal(isNamespaceAllowed('sts-volume-gitops', { allow: ['*'], state: 'sts-volume-gitops' }), false);
    assert.equal(isNamespaceAllowed('ops', { allow: ['ops'], state: 'ops' }), false, 'even listed (the configuration refuses that)');
  });

  it('blocks a StatefulSet in the state namespace under allow: ["*"], saying why', () => {
    const world = pgWorld();
    const db = world.namespaces.get('db');
    assert.ok(db);
    world.namespaces.set('sts-volume-gitops', db);
    const [inState] = planTarget([desiredSet({ namespace: 'sts-volume-gitops' })], world, { allowedNamespaces: ['*'], stateNamespace: 'sts-volume-gitops' });
    assert.equal(inState?.outcome, 'namespace-not-allowed');
    assert.deepEqual(inState?.templates.map((t) => t.action), ['blocked']);
    assert.match(inState?.templates[0]?.reasons[0]?.message ?? '', /^namespace sts-volume-gitops is this target's state namespace \(its Lease and recreation records\): never a workload namespace/);
    const [inDb] = planTarget([desiredSet()], pgWorld(), { allowedNamespaces: ['*'], stateNamespace: 'sts-volume-gitops' });
    assert.equal(inDb?.templates[0]?.action, 'resize');
  });
});
