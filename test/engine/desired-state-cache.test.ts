import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readDesiredStateReused } from '../../functions/engine/desired/desired-state-cache.ts';

const manifest = (storage: string): string => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg, namespace: db}
spec:
  replicas: 1
  serviceName: pg
  selector: {matchLabels: {app: pg}}
  template: {metadata: {labels: {app: pg}}, spec: {containers: [{name: main, image: busybox}]}}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: ${storage}}}}
`;

test('the same files are parsed once; a changed file, another target or another default namespace parse again', () => {
  const options = { globs: ['**/*.yaml'], defaultNamespace: 'db' };
  const first = readDesiredStateReused(new Map([['pg.yaml', manifest('10Gi')]]), options);
  assert.equal(first.statefulSets[0]?.templates[0]?.storageText, '10Gi');
  assert.equal(readDesiredStateReused(new Map([['pg.yaml', manifest('10Gi')]]), options), first);
  const changed = readDesiredStateReused(new Map([['pg.yaml', manifest('20Gi')]]), options);
  assert.notEqual(changed, first);
  assert.equal(changed.statefulSets[0]?.templates[0]?.storageText, '20Gi');
  const added = readDesiredStateReused(new Map([['pg.yaml', manifest('20Gi')], ['other.yaml', '']]), options);
  assert.notEqual(added, changed);
  const otherNamespace = readDesiredStateReused(new Map([['pg.yaml', manifest('20Gi')]]), { ...options, defaultNamespace: 'other' });
  assert.notEqual(otherNamespace, changed);
});
