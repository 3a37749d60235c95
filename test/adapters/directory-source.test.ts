// The local Git source over a real directory: files matching the globs, plus mapped files wherever they are.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DirectorySource } from '../../functions/adapters/local/directory-source.ts';

describe('DirectorySource', () => {
  it('reads the files its globs match and the files size sources map outside them, nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-directory-source-'));
    const files: Record<string, string> = {
      'k8s/pg.yaml': 'kind: StatefulSet\n',
      'apps/victoria/values-prod.yaml': 'server: { persistentVolume: { size: 10Gi } }\n',
      'apps/victoria/values-dev.yaml': 'server: { persistentVolume: { size: 1Gi } }\n',
      'kustomize/patch.json': '[{ "op": "replace", "path": "/spec", "value": "5Gi" }]\n',
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const source = new DirectorySource(dir, ['k8s/**/*.yaml'], ['apps/victoria/values-prod.yaml', 'kustomize/patch.json', 'apps/missing.yaml']);
    const head = await source.readBranchHead();
    assert.deepEqual([...head.files.keys()].sort(), ['apps/victoria/values-prod.yaml', 'k8s/pg.yaml', 'kustomize/patch.json']);
    assert.equal(head.files.get('apps/victoria/values-prod.yaml'), files['apps/victoria/values-prod.yaml']);
  });

  it('leaves a file over the limit unread, from its size alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-directory-source-'));
    await mkdir(join(dir, 'k8s'), { recursive: true });
    await writeFile(join(dir, 'k8s', 'pg.yaml'), 'kind: StatefulSet\n');
    await writeFile(join(dir, 'k8s', 'bundle.yaml'), '- padding\n'.repeat(200_000));
    const head = await new DirectorySource(dir, ['k8s/*.yaml']).readBranchHead();
    assert.deepEqual([...head.files.keys()], ['k8s/pg.yaml']);
    assert.deepEqual([...head.tooLarge], [['k8s/bundle.yaml', 2_000_000]]);
  });
});
