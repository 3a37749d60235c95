// Issue 37, item 5: `rbac --user/--service-account/--group` binds that subject with bindings of its own, named after
// it, so applying it never takes the grants from the identity bound before (on EKS, the deployed function's group).
// The printed manifest is applied to the Kubernetes sandbox as `kubectl apply` would (create or replace), and each
// identity's access is asked of the sandbox's RBAC with its own token (SelfSubjectAccessReview, as `kubectl auth can-i`).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuthorizationV1Api, KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { bindingSuffix, defaultRbacGroup, parseSubject } from '../../functions/app/rbac-manifest.ts';
import { rbacCommand } from '../../functions/cli/rbac-command.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

const exampleConfig = new URL('../../infra/k8s/example-config.yaml', import.meta.url).pathname;

async function manifest(args: string[]): Promise<{ text: string; objects: Array<Record<string, unknown>> }> {
  let text = '';
  assert.equal(await rbacCommand(['--config', exampleConfig, ...args], (t) => { text += t; }), 0);
  return { text, objects: parseAllDocuments(text).map((d) => d.toJSON() as Record<string, unknown>).filter((o) => o !== null) };
}

describe('rbac for another subject', () => {
  let dir: string;
  let kube: KubeSandbox;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-rbac-subjects-'));
    kube = await startKubeSandbox({ seedFile: new URL('../../examples/cluster-seed.yaml', import.meta.url).pathname, workDir: dir });
  });
  after(async () => {
    await kube.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function mayListStorageClasses(user: { name: string; groups: string[] }): Promise<boolean> {
    const config = new KubeConfig();
    config.loadFromFile((await kube.addIdentity(user)).kubeconfigPath);
    const review = await config.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', group: 'storage.k8s.io', resource: 'storageclasses' } } },
    });
    return review.status?.allowed === true;
  }

  it('adds bindings named after the user, and the group bound before keeps its grants', async () => {
    const group = await manifest([]);
    await applyObjects(kube, group.objects);
    assert.ok(await mayListStorageClasses({ name: 'function-role', groups: [defaultRbacGroup] }));
    const user = await manifest(['--user', 'alice']);
    const bindings = user.objects.filter((o) => String(o.kind).endsWith('Binding')).map((o) => (o.metadata as { name: string }).name);
    assert.ok(bindings.length > 0 && bindings.every((name) => name === 'sts-volume-gitops-user-alice'), bindings.join(', '));
    await applyObjects(kube, user.objects);
    assert.ok(await mayListStorageClasses({ name: 'alice', groups: [] }), 'alice is bound');
    assert.ok(await mayListStorageClasses({ name: 'function-role-2', groups: [defaultRbacGroup] }), 'the group bound before still is');
    assert.match(user.text, /^# Binds User "alice" with bindings named sts-volume-gitops-user-alice\.$/m);
    assert.match(user.text, /^# Applying it binds only these; identities bound by an earlier `rbac` for another subject keep their own bindings$/m);
    assert.match(group.text, /^# Binds Group "sts-volume-gitops" with bindings named sts-volume-gitops \(the EKS access entry of infra\/ maps the function's IAM role to this group\)\.$/m);
  });

  it('names each subject apart, in the characters a name may hold, and keeps the default group\'s names', () => {
    assert.equal(bindingSuffix(parseSubject('group', defaultRbacGroup)), '');
    assert.equal(bindingSuffix(parseSubject('service-account', 'ops:gitops')), '-sa-ops.gitops');
    const arn = bindingSuffix(parseSubject('user', 'arn:aws:sts::111122223333:assumed-role/Admin/me'));
    assert.match(arn, /^-user-arn-aws-sts-111122223333-assumed-role-admin-me-[0-9a-f]{8}$/);
    assert.notEqual(bindingSuffix(parseSubject('user', 'Alice')), bindingSuffix(parseSubject('user', 'alice')));
    assert.notEqual(bindingSuffix(parseSubject('group', 'a')), bindingSuffix(parseSubject('user', 'a')));
  });
});
