// The fork's view of a verdict (pure): from the pull request's files and the branch's, never the cluster.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readTargetDesired } from '../../functions/engine/desired/desired-input.ts';
import { forkChangeTitle, forkVerdict } from '../../functions/feedback/fork-verdict.ts';
import { pgManifest } from './one-set-world.ts';

const globs = ['k8s/**/*.yaml'];
const read = (files: Record<string, string>) => readTargetDesired(new Map(Object.entries(files)), {
  globs, defaultNamespace: 'default',
  sizeSources: [{ file: 'values.yaml', path: 'pg.size', statefulSet: 'db/mapped', template: 'data' }],
});
const base = { 'k8s/pg.yaml': pgManifest('20Gi'), 'values.yaml': 'pg:\n  size: 10Gi\n' };

function verdict(changes: Record<string, string>, allow: string[] = ['db']) {
  const head = read({ ...base, ...changes });
  const touched = new Set(Object.keys(changes));
  return forkVerdict({
    context: 'c', touched, scope: { allow, state: 'sts-volume-gitops' }, base: read(base),
    head: { ...head, errors: head.errors.filter((e) => touched.has(e.path)) },
  });
}

describe('forkVerdict', () => {
  it('passes a change that keeps every size and class, however the size is spelt', () => {
    assert.equal(verdict({ 'k8s/pg.yaml': pgManifest('21474836480') }).state, 'success');
    assert.equal(verdict({ 'values.yaml': 'pg:\n  size: 10Gi  # same\n' }).state, 'success');
  });

  it('gives a size or class change, a new template or set, and a mapped size the one fixed verdict, which does not pass', () => {
    for (const changes of <Array<Record<string, string>>>[
      { 'k8s/pg.yaml': pgManifest('30Gi') },
      { 'k8s/pg.yaml': pgManifest('20Gi').replace('accessModes: [ReadWriteOnce]', 'accessModes: [ReadWriteOnce]\n        volumeAttributesClassName: gold') },
      { 'k8s/other.yaml': pgManifest('20Gi').replace('name: pg', 'name: other') },
      { 'values.yaml': 'pg:\n  size: 11Gi\n' },
    ]) {
      const check = verdict(changes);
      assert.deepEqual({ state: check.state, title: check.title, annotations: check.annotations }, { state: 'error', title: forkChangeTitle, annotations: [] });
    }
  });

  it('fails what Git alone shows at its line: an unreadable size, a namespace the target may not resize', () => {
    const broken = verdict({ 'k8s/pg.yaml': pgManifest('lots') });
    assert.equal(broken.state, 'failure');
    assert.equal(broken.annotations[0]?.path, 'k8s/pg.yaml');
    const elsewhere = verdict({ 'k8s/pg.yaml': pgManifest('20Gi').replace('namespace: db', 'namespace: kube-system') });
    assert.equal(elsewhere.state, 'failure');
    assert.match(elsewhere.annotations[0]?.message ?? '', /^kube-system\/pg: namespace kube-system is not in this target's allowlist \(db\)$/);
    assert.equal(verdict({ 'k8s/pg.yaml': pgManifest('20Gi').replace('namespace: db', 'namespace: sts-volume-gitops') }, ['*']).state, 'failure');
  });
});
