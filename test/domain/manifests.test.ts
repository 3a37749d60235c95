import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesManifestGlobs, readDesiredState, replaceClassValue, replaceStorageValue } from '../../functions/domain/manifests.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const helmRendered = `---
# Source: postgres/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: pg
spec:
  clusterIP: None
  selector: { app: pg }
---
# Source: postgres/templates/statefulset.yaml
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: pg
  namespace: db
  labels: &labels
    app: pg
spec:
  serviceName: pg
  replicas: 3
  selector:
    matchLabels: *labels
  template:
    metadata:
      labels: *labels
    spec:
      containers:
        - name: postgres
          image: postgres:16
  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: standard
        resources:
          requests:
            storage: "20Gi"   # grown from 10Gi in PR #12
    - metadata:
        name: wal
      spec:
        accessModes: ["ReadWriteOnce"]
        resources:
          requests:
            storage: 2Gi
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: pg-config
data:
  max_connections: "100"
`;

const parallelSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: redis
spec:
  podManagementPolicy: Parallel
  selector: { matchLabels: { app: redis } }
  template: { metadata: { labels: { app: redis } }, spec: { containers: [{ name: redis, image: redis:7 }] } }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 5368709120 } }
`;

function read(files: Record<string, string>, globs = ['k8s/**/*.yaml', 'k8s/**/*.yml']) {
  return readDesiredState(new Map(Object.entries(files)), { globs, defaultNamespace: 'default' });
}

describe('readDesiredState on realistic manifests', () => {
  const state = read({ 'k8s/db/pg.yaml': helmRendered, 'k8s/cache/redis.yml': parallelSet, 'docs/readme.md': '# not yaml' });

  it('keeps only apps/v1 StatefulSets and skips Services and ConfigMaps quietly', () => {
    assert.deepEqual(state.errors, []);
    assert.deepEqual(state.statefulSets.map((s) => `${s.namespace}/${s.name}`).sort(), ['db/pg', 'default/redis']);
  });

  it('reads replicas, the pod management policy and its default', () => {
    const pg = state.statefulSets.find((s) => s.name === 'pg');
    const redis = state.statefulSets.find((s) => s.name === 'redis');
    assert.equal(pg?.replicas, 3);
    assert.equal(pg?.podManagementPolicy, 'OrderedReady');
    assert.equal(redis?.replicas, 1);
    assert.equal(redis?.podManagementPolicy, 'Parallel');
  });

  it('reads both templates with class, quoted and unquoted sizes, and the storage scalar position', () => {
    const pg = state.statefulSets.find((s) => s.name === 'pg');
    const [data, wal] = pg?.templates ?? [];
    assert.equal(data?.name, 'data');
    assert.equal(data?.storageClassName, 'standard');
    assert.equal(data?.storageText, '20Gi');
    assert.deepEqual(data?.storageLocation, { path: 'k8s/db/pg.yaml', line: 39, column: 22 });
    assert.equal(helmRendered.slice(...(data?.storageRange ?? [0, 0])), '"20Gi"');
    assert.equal(wal?.storageClassName, undefined);
    assert.equal(wal?.storage.bytes, 2n * 1024n ** 3n);
    const redis = state.statefulSets.find((s) => s.name === 'redis');
    assert.equal(redis?.templates[0]?.storage.bytes, 5368709120n);
  });

  it('keeps the template without its storage field for the only-storage-changed check', () => {
    const data = state.statefulSets.find((s) => s.name === 'pg')?.templates[0];
    assert.deepEqual(data?.templateWithoutStorage, {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: {} } },
    });
  });

  it('records where each StatefulSet document starts', () => {
    assert.deepEqual(state.statefulSets.find((s) => s.name === 'pg')?.location, { path: 'k8s/db/pg.yaml', line: 10, column: 1 });
  });
});

describe('readDesiredState reports errors with file, line and JSON path, and never hides good documents', () => {
  it('keeps the good StatefulSet next to a document with a YAML syntax error', () => {
    const broken = `apiVersion: apps/v1\nkind: StatefulSet\nmetadata: { name: bad\n---\n${parallelSet}`;
    const state = read({ 'k8s/mixed.yaml': broken });
    assert.deepEqual(state.statefulSets.map((s) => s.name), ['redis']);
    assert.equal(state.errors.length, 1);
    assert.equal(state.errors[0]?.path, 'k8s/mixed.yaml');
    assert.match(state.errors[0]?.message ?? '', /YAML syntax error/);
  });

  it('names file, line and JSON path of a schema violation', () => {
    const bad = parallelSet.replace('podManagementPolicy: Parallel', 'podManagementPolicy: Sometimes');
    const state = read({ 'k8s/redis.yaml': bad });
    assert.deepEqual(state.statefulSets, []);
    assert.deepEqual(state.errors.map((e) => [e.line, e.jsonPath]), [[6, '/spec/podManagementPolicy']]);
    assert.match(state.errors[0]?.message ?? '', /must be equal to one of the allowed values: "OrderedReady", "Parallel"/);
  });

  it('reports a template without a storage request at the template', () => {
    const bad = parallelSet.replace('resources: { requests: { storage: 5368709120 } }', 'resources: { requests: {} }');
    const state = read({ 'k8s/redis.yaml': bad });
    assert.equal(state.errors[0]?.jsonPath, '/spec/volumeClaimTemplates/0/spec/resources/requests');
    assert.match(state.errors[0]?.message ?? '', /missing required field storage/);
    assert.equal(state.errors[0]?.line, 13);
  });

  it('reports an invalid quantity at the storage value, quoting it', () => {
    const state = read({ 'k8s/redis.yaml': parallelSet.replace('storage: 5368709120', 'storage: 20Gb') });
    assert.equal(state.errors.length, 1);
    assert.match(state.errors[0]?.message ?? '', /invalid quantity "20Gb"/);
    assert.deepEqual([state.errors[0]?.line, state.errors[0]?.column], [13, 43]);
  });

  it('reports the same namespace/name defined twice on both places and keeps neither', () => {
    const state = read({ 'k8s/a.yaml': parallelSet, 'k8s/b.yaml': parallelSet });
    assert.deepEqual(state.statefulSets, []);
    assert.deepEqual(state.errors.map((e) => `${e.path}:${e.line}`), ['k8s/a.yaml:1', 'k8s/b.yaml:1']);
    assert.match(state.errors[0]?.message ?? '', /default\/redis is defined more than once \(also at k8s\/b.yaml:1\)/);
  });

  it('refuses a billion-laughs alias bomb with a located error instead of expanding it', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 13; level++) bomb.push(`${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9).fill(`*${String.fromCharCode(96 + level)}`).join(',')}]`);
    const state = read({ 'k8s/bomb.yaml': `${bomb.join('\n')}\n---\n${parallelSet}` });
    assert.deepEqual(state.statefulSets.map((s) => s.name), ['redis']);
    assert.match(state.errors[0]?.message ?? '', /uses 108 YAML aliases, over the limit of 100; it was not read/);
  });

  it('refuses an alias bomb under the alias limit placed inside a volumeClaimTemplate, keeping the other files', () => {
    // 8 levels of 9 aliases each and one use: 73 aliases, 9^8 (43 million) values once expanded.
    const anchors = ['x-laughs: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 9; level++) anchors.push(`x-l${level}: &l${level} [${Array(9).fill(`*l${level - 1}`).join(',')}]`);
    const bombed = `${anchors.join('\n')}\n${parallelSet.replace('- metadata: { name: data }', '- metadata: { name: data, labels: *l8 }').replace('name: redis\n', 'name: bombed\n')}`;
    const state = read({ 'k8s/bombed.yaml': bombed, 'k8s/good.yaml': parallelSet });
    assert.deepEqual(state.statefulSets.map((s) => s.name), ['redis']);
    assert.match(state.errors[0]?.message ?? '', /^document expands through its 73 YAML aliases to more than 100000 values; it was not read$/);
    assert.equal(state.errors[0]?.path, 'k8s/bombed.yaml');
  });

  it('reports a StatefulSet under a removed API version instead of ignoring it', () => {
    const state = read({ 'k8s/old.yaml': parallelSet.replace('apps/v1', 'apps/v1beta1') });
    assert.deepEqual(state.statefulSets, []);
    assert.deepEqual(state.errors.map((e) => [e.path, e.line]), [['k8s/old.yaml', 1]]);
    assert.match(state.errors[0]?.message ?? '', /apiVersion "apps\/v1beta1" is not read: only apps\/v1/);
  });

  it('refuses files over the size limit and streams over the document limit', () => {
    const big = readDesiredState(new Map([['k8s/big.yaml', parallelSet]]), { globs: ['k8s/**'], defaultNamespace: 'd', limits: { maxFileBytes: 100 } });
    assert.match(big.errors[0]?.message ?? '', /over the limit of 100/);
    const many = readDesiredState(new Map([['k8s/many.yaml', 'a: 1\n---\nb: 2\n---\nc: 3\n']]), { globs: ['k8s/**'], defaultNamespace: 'd', limits: { maxDocuments: 2 } });
    assert.match(many.errors[0]?.message ?? '', /3 YAML documents, over the limit of 2/);
  });
});

describe('matchesManifestGlobs', () => {
  it('matches only .yaml and .yml paths under the globs', () => {
    assert.equal(matchesManifestGlobs('k8s/db/pg.yaml', ['k8s/**/*.yaml']), true);
    assert.equal(matchesManifestGlobs('k8s/db/pg.yml', ['k8s/**']), true);
    assert.equal(matchesManifestGlobs('k8s/db/notes.txt', ['k8s/**']), false);
    assert.equal(matchesManifestGlobs('apps/pg.yaml', ['k8s/**']), false);
  });
});

describe('replaceStorageValue', () => {
  const pg = read({ 'k8s/db/pg.yaml': helmRendered }).statefulSets[0];
  const data = pg?.templates[0];
  const wal = pg?.templates[1];

  it('changes only the bytes of the storage value, keeping quotes and the comment after it', () => {
    assert.ok(data);
    const updated = replaceStorageValue(helmRendered, data, '15Gi');
    assert.equal(updated, helmRendered.replace('storage: "20Gi"   # grown', 'storage: "15Gi"   # grown'));
  });

  it('edits the second template of the same set without touching the first', () => {
    assert.ok(wal);
    const updated = replaceStorageValue(helmRendered, wal, '3Gi');
    assert.equal(updated, helmRendered.replace('storage: 2Gi', 'storage: 3Gi'));
  });

  it('edits a storage value written as an unquoted YAML number, quoting the new value so it stays a string', () => {
    const text = helmRendered.replace('storage: 2Gi', 'storage: 2e12');
    const template = read({ 'k8s/db/pg.yaml': text }).statefulSets[0]?.templates[1];
    assert.ok(template);
    assert.equal(replaceStorageValue(text, template, '1800e9'), text.replace('storage: 2e12', 'storage: "1800e9"'));
    assert.equal(replaceStorageValue(text, template, '1800G'), text.replace('storage: 2e12', 'storage: 1800G'));
  });

  it('refuses a value that is not a quantity', () => {
    assert.ok(data);
    assert.throws(() => replaceStorageValue(helmRendered, data, '15 gigs'), /invalid quantity/);
  });

  it('refuses when the file changed since it was read (the range no longer holds the value)', () => {
    assert.ok(data);
    assert.throws(() => replaceStorageValue(`# shifted\n${helmRendered}`, data, '15Gi'), /would change more than the storage value|storage value/);
  });
});

describe('volumeAttributesClassName in a manifest (KEP-3751)', () => {
  const text = statefulSetManifest({ volumeAttributesClass: '"gold"  # tier' });
  const read = () => readDesiredState(new Map([['k8s/pg.yaml', text]]), { globs: ['**/*.yaml'], defaultNamespace: 'db' }).statefulSets[0]?.templates[0];

  it('is read with where it is written', () => {
    const template = read();
    assert.equal(template?.volumeAttributesClassName, 'gold');
    assert.equal(template?.classLocation?.line, text.split('\n').findIndex((l) => l.includes('volumeAttributesClassName')) + 1);
  });

  it('is rewritten byte for byte (quotes and comment kept), and a name the server would refuse is refused', () => {
    const template = read();
    assert.ok(template);
    assert.equal(replaceClassValue(text, template, 'silver'), text.replace('"gold"  # tier', '"silver"  # tier'));
    assert.throws(() => replaceClassValue(text, template, 'Not A Name'), /"Not A Name" is not a VolumeAttributesClass name/);
  });
});

describe('readDesiredState reads the tool\'s own annotations (a set\'s growth policy)', () => {
  it('keeps each sts-volume-gitops.io/ annotation as written, with the line of its value, and no other', () => {
    const text = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: pg
  namespace: db
  annotations:
    sts-volume-gitops.io/growth: "off"
    sts-volume-gitops.io/growth-used-percent: 90
    example.com/owner: team-a
spec:
  serviceName: pg
  selector: { matchLabels: { app: pg } }
  template: { metadata: { labels: { app: pg } }, spec: { containers: [{ name: c, image: busybox }] } }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 10Gi } } }
`;
    const { statefulSets, errors } = readDesiredState(new Map([['k8s/pg.yaml', text]]), { globs: ['k8s/**'], defaultNamespace: 'default' });
    assert.deepEqual(errors, []);
    assert.deepEqual(statefulSets[0]?.toolAnnotations, [
      { name: 'sts-volume-gitops.io/growth', value: 'off', location: { path: 'k8s/pg.yaml', line: 7, column: 34 } },
      // An unquoted number is kept as read: the policy says to quote it (Kubernetes keeps annotations as strings).
      { name: 'sts-volume-gitops.io/growth-used-percent', value: 90, location: { path: 'k8s/pg.yaml', line: 8, column: 47 } },
    ]);
  });

  it('adds nothing to a set without them', () => {
    const { statefulSets } = readDesiredState(new Map([['k8s/pg.yaml', statefulSetManifest({})]]), { globs: ['k8s/**'], defaultNamespace: 'default' });
    assert.equal(statefulSets[0]?.toolAnnotations, undefined);
  });
});
