// Reading an RBAC refusal back from kube-apiserver's 403 text; admission's 403s (quota, resize rules) are left alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeMissingPermission, parseMissingPermission } from '../../functions/adapters/kube/forbidden.ts';

describe('RBAC refusals', () => {
  it('reads the verb, resource, group and scope of both forms, with a reason after them', () => {
    assert.deepEqual(
      parseMissingPermission('storageclasses.storage.k8s.io is forbidden: User "arn:aws:sts::1:assumed-role/r/x" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope'),
      { user: 'arn:aws:sts::1:assumed-role/r/x', verb: 'list', resource: 'storageclasses', apiGroup: 'storage.k8s.io', namespace: undefined, name: undefined },
    );
    assert.deepEqual(
      parseMissingPermission('leases.coordination.k8s.io "sts-volume-gitops-prod" is forbidden: User "u" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "platform": RBAC: role.rbac.authorization.k8s.io "x" not found'),
      { user: 'u', verb: 'update', resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'platform', name: 'sts-volume-gitops-prod' },
    );
  });

  // infra/k8s/rbac.yaml is the example configuration's manifest (its target's Lease name, its namespaces): applied for
  // another configuration it takes the Lease grant away, so the fix names the manifest generated for the config.
  it('says what to grant, and the manifest to apply is the one generated for the configuration', () => {
    const missing = parseMissingPermission('persistentvolumeclaims "data-pg-0" is forbidden: User "u" cannot patch resource "persistentvolumeclaims" in API group "" in the namespace "db"');
    assert.ok(missing);
    assert.equal(describeMissingPermission(missing),
      'the cluster refused: grant "patch" on "persistentvolumeclaims" in namespace "db" (`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -` grants what the configuration needs): User "u" may not patch persistentvolumeclaims "data-pg-0"');
  });

  it('leaves admission refusals as the server words them', () => {
    assert.equal(parseMissingPermission('persistentvolumeclaims "data-pg-0" is forbidden: exceeded quota: storage, requested: requests.storage=10Gi, used: requests.storage=50Gi, limited: requests.storage=55Gi'), undefined);
    assert.equal(parseMissingPermission('persistentvolumeclaims "data-pg-0" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize'), undefined);
  });
});
