// A size the node refuses, read over every version of the claim the sandbox writes as the real kubelet and
// external-resizer v2.0.0 do: NodeResizeInfeasible, handed back at once as NodeResizePending ("case 3"), tried again
// (NodeResizeInProgress) and refused again, round and round. Each version, read through the adapter's own mapping,
// must say the same thing (failed for good, the same words, the same time), or the report, the statuses and the
// recovery pull request change from pass to pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { toLivePvc } from '../../../functions/adapters/kube/map-objects.ts';
import type { JsonObject } from '../../../functions/domain/live-state.ts';
import { parseQuantity } from '../../../functions/domain/quantity.ts';
import { describePvc } from '../../../functions/engine/volumes/pvc-progress.ts';
import { startKubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

describe('a size the node refuses, as the sandbox\'s kubelet and resizer cycle it', () => {
  it('reads as one terminal failure in every version of the claim', async () => {
    const kube = await startKubeSandbox({
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'nodeonly', default: true, allowVolumeExpansion: true, driver: { expansion: 'node-only', maxVolumeSize: '30Gi' } }],
        statefulSets: [load(statefulSetManifest({ name: 'pg', storage: '10Gi', storageClass: 'nodeonly', replicas: 1 }))],
      },
    });
    try {
      kube.tick(4);
      const versions: JsonObject[] = [];
      kube.store.onChange((change) => {
        if (change.object.metadata.name === 'data-pg-0' && change.object.kind === 'PersistentVolumeClaim') versions.push(structuredClone(change.object));
      });
      const claim = kube.store.get(pvcType, 'db', 'data-pg-0');
      assert.ok(claim);
      kube.store.replace(pvcType, { ...claim, spec: { ...claim.spec, resources: { requests: { storage: '100Gi' } } } });
      kube.tick(30);
      const read = versions.map((json) => ({ status: toLivePvc(json).resizeStatus, progress: describePvc('data-pg-0', 0, toLivePvc(json), parseQuantity('100Gi')) }));
      const refused = read.filter((r) => r.progress.condition?.type === 'NodeResizeError' || r.status === 'NodeResizeInfeasible');
      assert.deepEqual([...new Set(refused.map((r) => r.status))].sort(), ['NodeResizeInProgress', 'NodeResizeInfeasible', 'NodeResizePending'], 'the sandbox cycles as the real components do');
      const first = refused[0]?.progress;
      assert.equal(first?.state, 'failed');
      assert.match(first?.message ?? '', /code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 32212254720/);
      for (const r of refused) {
        assert.deepEqual(
          [r.progress.state, r.progress.terminal, r.progress.message, r.progress.since],
          [first.state, true, first.message, first.since],
          r.status,
        );
      }
    } finally {
      await kube.close();
    }
  });
});
