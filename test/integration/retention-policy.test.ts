// A StatefulSet whose PVCs are deleted with it (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete) owns its
// claims. The product's template update deletes the set with propagationPolicy Orphan and re-creates it: the claims
// must survive (same uids, never deleted), the re-created set must keep the policy and own them again, as the real
// v1.34 server does (/work/shared/conformance/README.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, startHarness, storageOf, types } from './harness.ts';

describe('a whenDeleted: Delete StatefulSet resized by the product (v1.34)', () => {
  it('keeps its PVCs (same uids), their owner the re-created set, and its retention policy', async () => {
    const retentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Retain' } as const;
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' }, retentionPolicy }] });
    try {
      const before = h.kube.store.get(types.sts, 'db', 'pg');
      const claims = (): string[] => h.pvcs().map((p) => `${p.metadata.name}:${p.metadata.uid ?? ''}`);
      const claimsBefore = claims();
      const ownersOf = (uid: string | undefined): string[] => h.pvcs().map((p) => (p.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}/${r.uid === uid ? 'set' : r.uid}/${String(r.controller)}`).join(','));
      assert.deepEqual(ownersOf(before?.metadata.uid), ['StatefulSet/pg/set/true', 'StatefulSet/pg/set/true'], 'the set owns its claims');
      const deleted: string[] = [];
      const stop = h.kube.store.onChange((change) => {
        if (change.kind === 'deleted' && change.type === types.pvc) deleted.push(change.object.metadata.name);
      });

      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' }, retentionPolicy });
      await h.converge(allConverged);
      stop();

      const after = h.kube.store.get(types.sts, 'db', 'pg');
      assert.notEqual(after?.metadata.uid, before?.metadata.uid, 'the set was re-created');
      assert.deepEqual(after?.spec?.persistentVolumeClaimRetentionPolicy, retentionPolicy, 'policy intact');
      assert.deepEqual(deleted, [], 'no claim was deleted');
      assert.deepEqual(claims(), claimsBefore, 'the same claims');
      assert.deepEqual(ownersOf(after?.metadata.uid), ['StatefulSet/pg/set/true', 'StatefulSet/pg/set/true'], 'owned by the new set');
      assert.deepEqual(h.pvcs().map(storageOf), [{ request: '20Gi', capacity: '20Gi' }, { request: '20Gi', capacity: '20Gi' }]);
    } finally {
      await h.close();
    }
  });
});
