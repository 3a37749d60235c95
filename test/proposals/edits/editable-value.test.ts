// The editable value where a template's size or class lives: the manifest's, or the value a size source maps from a
// values file, found for the template it names and rewritten byte-exactly (nothing else in the file changes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SizeSource } from '../../../functions/domain/size-sources.ts';
import { editableValueIn, oneLineDiff } from '../../../functions/proposals/edits/editable-value.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';

const pg = { namespace: 'db', statefulSet: 'pg', template: 'data' };
const values = '# postgresql chart values (prod)\nprimary:\n  persistence:\n    size: 10Gi  # grown in March\n    volumeAttributesClassName: gold  # performance tier\n';
const sizeSources: SizeSource[] = [
  { file: 'apps/pg/values.yaml', path: 'primary.persistence.size', statefulSet: 'db/pg', template: 'data' },
  { file: 'apps/pg/values.yaml', path: 'primary.persistence.volumeAttributesClassName', statefulSet: 'db/pg', template: 'data', value: 'volumeAttributesClassName' },
];

describe('the editable value of a template', () => {
  const manifest = statefulSetManifest({ storage: '100Gi', storageComment: 'sized by the platform team', volumeAttributesClass: 'fast' });

  it('is the manifest\'s storage request or class, replaced alone', () => {
    const size = editableValueIn(manifest, 'k8s/pg.yaml', pg, 'storage', { defaultNamespace: 'default' });
    assert.equal(size?.value, '100Gi');
    assert.equal(manifest.split('\n')[(size?.line ?? 0) - 1]?.trim(), 'storage: 100Gi  # sized by the platform team');
    assert.equal(size?.replace(manifest, '50Gi'), manifest.replace('storage: 100Gi', 'storage: 50Gi'));
    const klass = editableValueIn(manifest, 'k8s/pg.yaml', pg, 'volumeAttributesClassName', { defaultNamespace: 'default' });
    assert.equal(klass?.value, 'fast');
    assert.equal(klass?.replace(manifest, 'slow'), manifest.replace('volumeAttributesClassName: fast', 'volumeAttributesClassName: slow'));
  });

  it('is the mapped value when a size source maps it, in its own file only', () => {
    const size = editableValueIn(values, 'apps/pg/values.yaml', pg, 'storage', { defaultNamespace: 'default', sizeSources });
    assert.deepEqual([size?.value, size?.line], ['10Gi', 4]);
    assert.equal(size?.replace(values, '20Gi'), values.replace('size: 10Gi', 'size: 20Gi'));
    const klass = editableValueIn(values, 'apps/pg/values.yaml', pg, 'volumeAttributesClassName', { defaultNamespace: 'default', sizeSources });
    assert.deepEqual([klass?.value, klass?.line], ['gold', 5]);
    assert.equal(klass?.replace(values, 'silver'), values.replace('Name: gold', 'Name: silver'));
    assert.equal(editableValueIn(values, 'apps/other/values.yaml', pg, 'storage', { defaultNamespace: 'default', sizeSources }), undefined);
  });

  it('is absent where the file does not hold it: another template, or no class', () => {
    const plain = statefulSetManifest({ storage: '100Gi' });
    assert.equal(editableValueIn(plain, 'k8s/pg.yaml', { ...pg, template: 'logs' }, 'storage', { defaultNamespace: 'default' }), undefined);
    assert.equal(editableValueIn(plain, 'k8s/pg.yaml', pg, 'volumeAttributesClassName', { defaultNamespace: 'default' }), undefined);
  });

  it('reads as a one-line diff', () => {
    assert.equal(oneLineDiff('a.yaml', 2, 'x\nsize: 1Gi\n', 'x\nsize: 2Gi\n'), '--- a/a.yaml\n+++ b/a.yaml\n@@ line 2 @@\n-size: 1Gi\n+size: 2Gi');
  });
});
