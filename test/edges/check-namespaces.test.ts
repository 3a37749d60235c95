// Issue 30, items 4 and 5: namespaces the target names that do not exist, against the Kubernetes sandbox. A namespace
// in namespaces.allow that does not exist is flagged (with "did you mean") and no permission line speaks for it; run
// as the tool's own identity (which may not read Namespaces), a custom state namespace that does not exist is named
// first, not left behind four "grant create leases" errors; and the RBAC manifest's header says to create it first,
// which, followed, makes check pass.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rbacCommand } from '../../functions/cli/rbac-command.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';

describe('check: namespaces the target names that do not exist', () => {
  let sandboxes: CheckSandboxes;

  before(async () => { sandboxes = await startCheckSandboxes(); });
  after(() => sandboxes.close());

  it('flags an allowed namespace that does not exist, with the one it probably meant, as an admin sees it', async () => {
    const path = await sandboxes.configFile('typo', { edit: (t) => t.replace('allow: [db, cache, analytics]', 'allow: [db, cache, analytics, analytic]') });
    const checked = await sandboxes.check(path);
    assert.equal(checked.code, 1, checked.text);
    assert.deepEqual(checked.errors.map((e) => [e.id, e.subject]), [['cluster.namespaces', 'analytic']]);
    assert.match(checked.errors[0]?.message ?? '', /^namespace analytic \(in namespaces\.allow\) does not exist: the RBAC manifest's Role for it cannot be applied/);
    assert.match(checked.errors[0]?.fix ?? '', /^did you mean analytics\? Correct namespaces\.allow, or create the namespace \(`kubectl create namespace analytic`\)/);
    // The admin may do anything anywhere: its access line must not vouch for a namespace that does not exist.
    const access = checked.results.find((r) => r.id === 'cluster.access');
    assert.equal(access?.level, 'ok');
    assert.doesNotMatch(access?.message ?? '', /analytic\b/);
  });

  it('names an allowed namespace the tool\'s identity cannot read as probably missing, without access errors for it', async () => {
    const path = await sandboxes.configFile('logs', { edit: (t) => t.replace('allow: [db, cache, analytics]', 'allow: [db, cache, analytics, logs]') });
    const tool = await sandboxes.toolIdentity('tool-logs', path);
    const checked = await sandboxes.check(await sandboxes.configFile('logs-as-tool', { kubeconfig: tool, edit: (t) => t.replace('allow: [db, cache, analytics]', 'allow: [db, cache, analytics, logs]') }));
    assert.equal(checked.code, 1);
    const [first] = checked.errors;
    assert.deepEqual([first?.id, first?.subject], ['cluster.namespaces', 'logs'], checked.text);
    assert.match(first?.message ?? '', /probably does not exist \(inferred: this identity may not read Namespaces, and it is refused every permission the RBAC manifest grants in logs while those elsewhere are allowed/);
    // Its line says what to do whether or not it exists; a "grant ... in namespace logs" could not be applied there.
    assert.deepEqual(checked.errors.slice(1), [], checked.text);
    assert.doesNotMatch(checked.text, /in namespace "logs"/);
  });

  it('names a custom state namespace that does not exist first, as the tool\'s identity, and the manifest says to create it', async () => {
    const state = (t: string): string => t.replace('default: default, state: default', 'default: default, state: platform');
    const path = await sandboxes.configFile('platform', { edit: state });
    let manifest = '';
    assert.equal(await rbacCommand(['--config', path], (text) => { manifest += text; }), 0);
    assert.match(manifest, /^# NOT created here: platform .*\n# would delete it with everything in it\)\. Create it before applying this file, or its Role fails to apply:\n# {3}kubectl create namespace platform$/m);
    assert.doesNotMatch(manifest, /^kind: Namespace$/m, 'a namespace the config names is never declared (kubectl delete -f would delete it)');
    const tool = await sandboxes.toolIdentity('tool-platform', path);
    const asTool = await sandboxes.configFile('platform-as-tool', { kubeconfig: tool, edit: state });
    const checked = await sandboxes.check(asTool);
    assert.equal(checked.code, 1);
    const [first] = checked.errors;
    assert.deepEqual([first?.id, first?.subject], ['cluster.lease-namespace', 'platform'], checked.text);
    assert.match(first?.message ?? '', /\(namespaces\.state\) probably does not exist \(inferred: /);
    assert.match(first?.fix ?? '', /^kubectl create namespace platform \(then apply the RBAC manifest again/);
    // Doing what the header and the fix say: create the namespace, apply the manifest again; check then passes.
    await applyObjects(sandboxes.kube, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'platform' } }]);
    await sandboxes.toolIdentity('tool-platform', path);
    const fixed = await sandboxes.check(asTool);
    assert.deepEqual(fixed.errors, [], fixed.text);
    assert.match(fixed.text, /ok +cluster\.lease-namespace +platform: exists; the target's Lease sts-volume-gitops-demo can be created there/);
  });

  it('says a missing default state namespace is created by the manifest, which declares it', async () => {
    const path = await sandboxes.configFile('default-state', { edit: (t) => t.replace('state: default, ', '') });
    let manifest = '';
    assert.equal(await rbacCommand(['--config', path], (text) => { manifest += text; }), 0);
    assert.match(manifest, /^# Created here: sts-volume-gitops \(the state namespace\)\.$/m);
    assert.match(manifest, /^kind: Namespace\nmetadata:\n {2}name: sts-volume-gitops$/m);
    const checked = await sandboxes.check(path);
    const lease = checked.results.find((r) => r.id === 'cluster.lease-namespace');
    assert.equal(lease?.level, 'error', checked.text);
    assert.match(lease?.fix ?? '', /it creates sts-volume-gitops/);
  });
});
