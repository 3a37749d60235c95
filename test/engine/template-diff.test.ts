import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeDifference, diffTemplates } from '../../functions/engine/plan/template-diff.ts';

const gitTemplate = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: {} } } };

describe('diffTemplates', () => {
  it('treats the server defaults of a live template as no difference', () => {
    const live = {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', creationTimestamp: null },
      spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', resources: { requests: {} } },
      status: { phase: 'Pending' },
    };
    assert.deepEqual(diffTemplates(live, gitTemplate), []);
  });

  it('finds a changed list, an added label and a removed limit, each with its path', () => {
    const live = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: {}, limits: { storage: '5Gi' } } } };
    const desired = { metadata: { name: 'data', labels: { tier: 'gold' } }, spec: { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], resources: { requests: {} } } };
    const paths = diffTemplates(live, desired).map((d) => d.path);
    assert.deepEqual(paths, ['metadata.labels.tier', 'spec.accessModes', 'spec.resources.limits.storage']);
  });

  it('sees volumeMode Block in Git as a change from the Filesystem default', () => {
    const differences = diffTemplates(gitTemplate, { ...gitTemplate, spec: { ...gitTemplate.spec, volumeMode: 'Block' } });
    assert.equal(differences.length, 1);
    assert.equal(describeDifference(differences[0]!), 'spec.volumeMode: "Filesystem" in the cluster, "Block" in Git');
  });

  it('leaves a volumeAttributesClassName change to the plan (it is mutable like the size), but not a storageClassName one', () => {
    const live = { ...gitTemplate, spec: { ...gitTemplate.spec, storageClassName: 'gp3', volumeAttributesClassName: 'silver' } };
    assert.deepEqual(diffTemplates(live, { ...gitTemplate, spec: { ...gitTemplate.spec, storageClassName: 'gp3', volumeAttributesClassName: 'gold' } }), []);
    assert.deepEqual(diffTemplates(live, { ...gitTemplate, spec: { ...gitTemplate.spec, storageClassName: 'io2', volumeAttributesClassName: 'silver' } }).map((d) => d.path), ['spec.storageClassName']);
  });
});
