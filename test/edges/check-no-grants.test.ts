// Issue 37, item 14: what `check` says to an identity granted nothing, and when the source cannot be read. One
// error for the missing grants (one fix, the list of what it grants), not one per resource and namespace; the
// namespaces it could not read said once, never asking for a grant of `get` on namespaces, which the RBAC manifest
// does not give (the tool never needs it); and every pointer ("above") names a line check prints. Both sandboxes,
// seeded from examples/, through the real clients.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';

describe('check for an identity granted nothing, and a source it cannot read', () => {
  let sandboxes: CheckSandboxes;
  let nobody: string;
  before(async () => {
    sandboxes = await startCheckSandboxes();
    nobody = (await sandboxes.kube.addIdentity({ name: 'nobody', groups: [] })).kubeconfigPath;
  });
  after(() => sandboxes.close());

  it('says the missing grants once, with one fix, and the namespaces it could not read once, asking for no grant the manifest lacks', async () => {
    const checked = await sandboxes.check(await sandboxes.configFile('nobody', { kubeconfig: nobody }));
    assert.equal(checked.code, 1);
    assert.deepEqual(checked.errors.map((e) => e.id), ['cluster.access'], checked.text);
    assert.match(checked.errors[0]?.message ?? '', /^this identity has none of the \d+ permissions the tool needs: list storageclasses, list volumeattributesclasses at the cluster scope; .* in namespaces analytics, cache, db; /);
    const fixes = checked.results.map((r) => r.fix).filter((f) => f !== undefined);
    assert.equal(new Set(fixes).size, fixes.length, `no fix is said twice:\n${checked.text}`);
    assert.deepEqual(checked.results.filter((r) => r.id === 'cluster.namespaces' || r.id === 'cluster.lease-namespace').map((r) => [r.id, r.level, r.subject]),
      [['cluster.namespaces', 'warning', 'analytics, cache, db, default']]);
    assert.match(checked.text, /could not tell whether namespaces analytics, cache, db, default \(the state namespace\) exist/);
    assert.doesNotMatch(checked.text, /grant "get" on "namespaces"/, 'the RBAC manifest grants no read of Namespaces: check does not ask for one');
    assert.match(checked.text, /this identity may not read Namespaces \(nor need it: the RBAC manifest grants no read of them\)/);
    assert.match(checked.text, /warning +cluster\.storageclass +StorageClasses: not checked: this identity may not list StorageClasses \(cluster\.access above says what to grant\)/);
  });

  it('points at the line that says why the manifests were not read, and that line is printed', async () => {
    const checked = await sandboxes.check(await sandboxes.configFile('no-token'), { CHECK_GITHUB_TOKEN: '' });
    assert.match(checked.text, /error +github\.credential +acme\/platform-gitops: /);
    assert.match(checked.text, /warning +cluster\.storageclass +templates: not checked: the manifests were not read \(github\.credential above says why\)/);
    assert.doesNotMatch(checked.text, /see source\.read|listed below/);
  });
});
