import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSizeValue, readSizeSources, replaceSizeValue, type SizeSource } from '../../functions/domain/size-sources.ts';
import { readTargetDesired, assembleDesired } from '../../functions/engine/desired/desired-input.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { livePvc, liveSet, snapshot } from '../engine/builders.ts';

const values = `# values for victoria-logs-single
server:
  replicaCount: 1
  persistentVolume:
    enabled: true
    size: "10Gi"   # grow me
    storageClassName: standard
extraSets:
  - name: a
    volume: { size: 2Gi }
  - name: b
    volume: { size: 3Gi }
labels:
  "app.kubernetes.io/size": 4Gi
common: &common 5Gi
aliased: *common
flag: true
`;

function source(path: string, overrides: Partial<SizeSource> = {}): SizeSource {
  return { file: 'apps/victoria/values.yaml', path, statefulSet: 'logs/victoria-logs', template: 'server-volume', ...overrides };
}

function read(...sources: SizeSource[]): ReturnType<typeof readSizeSources> {
  return readSizeSources(new Map([['apps/victoria/values.yaml', values], ['k8s/pg.yaml', pgManifest]]), sources);
}

const pgManifest = `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: victoria-logs, namespace: logs }
spec:
  serviceName: v
  selector: { matchLabels: { app: v } }
  template: { metadata: { labels: { app: v } }, spec: { containers: [{ name: v, image: v }] } }
  volumeClaimTemplates:
    - metadata: { name: server-volume }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
`;

describe('readSizeSources', () => {
  it('reads the value at the path with its line and the byte range of its source text', () => {
    const { values: [value], errors } = read(source('server.persistentVolume.size'));
    assert.deepEqual(errors, []);
    assert.equal(value?.storage.text, '10Gi');
    assert.deepEqual(value?.location, { path: 'apps/victoria/values.yaml', line: 6, column: 11 });
    assert.equal(values.slice(...(value?.range ?? [0, 0])), '"10Gi"');
    assert.equal(value?.namespace, 'logs');
    assert.equal(value?.name, 'victoria-logs');
  });

  it('addresses sequences and quoted keys, and lets several StatefulSets share one value', () => {
    const { values: found, errors } = read(
      source('extraSets[1].volume.size', { statefulSet: 'logs/b' }),
      source('labels."app.kubernetes.io/size"', { statefulSet: 'logs/c' }),
      source('extraSets[0].volume.size', { statefulSet: 'logs/a1' }),
      source('extraSets[0].volume.size', { statefulSet: 'logs/a2' }),
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(found.map((v) => `${v.name}=${v.storage.text}@${v.location.line}`), ['b=3Gi@12', 'c=4Gi@14', 'a1=2Gi@10', 'a2=2Gi@10']);
  });

  it('locates a missing path at the key of the deepest node that exists, and a missing file at the file', () => {
    const { errors } = readSizeSources(new Map([['apps/victoria/values.yaml', values]]), [
      source('server.persistentVolume.sizes'),
      source('extraSets[5].volume.size'),
      source('server.replicaCount.size'),
      source('x', { file: 'apps/gone.yaml' }),
    ]);
    assert.deepEqual(errors.map((e) => `${e.path}:${e.line}`), ['apps/gone.yaml:1', 'apps/victoria/values.yaml:3', 'apps/victoria/values.yaml:4', 'apps/victoria/values.yaml:8']);
    assert.match(errors[0]?.message ?? '', /size source logs\/victoria-logs server-volume \(apps\/gone\.yaml x\): the file does not exist at this commit/);
    assert.match(errors[1]?.message ?? '', /server\.replicaCount is not a mapping, so it has no key "size"/);
    assert.match(errors[2]?.message ?? '', /server\.persistentVolume has no key "sizes" \(the path server\.persistentVolume\.sizes is missing\)/);
    assert.match(errors[3]?.message ?? '', /extraSets has 2 items, no \[5\]/);
  });

  it('refuses values that are not sizes, aliases and mappings, each at its line', () => {
    const { values: found, errors } = read(source('flag'), source('aliased'), source('server.persistentVolume'), source('server.persistentVolume.storageClassName'));
    assert.deepEqual(found, []);
    assert.deepEqual(errors.map((e) => e.line), [4, 7, 16, 17]);
    assert.match(errors[0]?.message ?? '', /not a single size/);
    assert.match(errors[1]?.message ?? '', /"standard".*quantity|quantity.*standard/i);
    assert.match(errors[2]?.message ?? '', /the value is the YAML alias \*common/);
    assert.match(errors[3]?.message ?? '', /the value true is not a size; write a quantity such as 10Gi/);
  });

  it('reports a file that is not YAML or has several documents once, at its place', () => {
    const { errors } = readSizeSources(new Map([['a.yaml', 'a: [1\n'], ['b.yaml', 'x: 1Gi\n---\nx: 2Gi\n']]), [
      source('a', { file: 'a.yaml' }), source('a', { file: 'a.yaml', statefulSet: 'logs/other' }), source('x', { file: 'b.yaml' }),
    ]);
    assert.equal(errors.filter((e) => e.path === 'a.yaml').length, 1);
    assert.match(errors.find((e) => e.path === 'a.yaml')?.message ?? '', /YAML syntax error/);
    assert.match(errors.find((e) => e.path === 'b.yaml')?.message ?? '', /2 YAML documents/);
  });
});

describe('size sources in Kustomize patches', () => {
  it('reads and edits the value of a JSON 6902 patch and of a strategic-merge patch', () => {
    const jsonPatch = `# kustomize/overlays/prod/pg-storage.yaml
- op: replace
  path: /spec/volumeClaimTemplates/0/spec/resources/requests/storage
  value: 40Gi
`;
    const mergePatch = `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: pg }
spec:
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { resources: { requests: { storage: '25Gi' } } }
`;
    const op = findSizeValue(jsonPatch, source('[0].value', { file: 'p.yaml' }));
    assert.equal(op?.storage.text, '40Gi');
    assert.equal(op?.location.line, 4);
    assert.equal(op && replaceSizeValue(jsonPatch, op, '50Gi'), jsonPatch.replace('value: 40Gi', 'value: 50Gi'));
    const merged = findSizeValue(mergePatch, source('spec.volumeClaimTemplates[0].spec.resources.requests.storage', { file: 'm.yaml' }));
    assert.equal(merged?.storage.text, '25Gi');
    assert.equal(merged && replaceSizeValue(mergePatch, merged, '30Gi'), mergePatch.replace("storage: '25Gi'", "storage: '30Gi'"));
  });
});

describe('replaceSizeValue', () => {
  it('changes only the bytes of the value, keeping quotes and comments', () => {
    const value = findSizeValue(values, source('server.persistentVolume.size'));
    assert.ok(value);
    const updated = replaceSizeValue(values, value, '8Gi');
    assert.equal(updated, values.replace('size: "10Gi"   # grow me', 'size: "8Gi"   # grow me'));
    const plain = findSizeValue(values, source('extraSets[1].volume.size'));
    assert.ok(plain);
    assert.equal(replaceSizeValue(values, plain, '30Gi'), values.replace('volume: { size: 3Gi }', 'volume: { size: 30Gi }'));
  });

  it('refuses to edit an anchored value that is aliased elsewhere', () => {
    const value = findSizeValue(values, source('common'));
    assert.ok(value);
    assert.throws(() => replaceSizeValue(values, value, '6Gi'), /would change more than the value at common/);
  });
});

describe('readTargetDesired and assembleDesired', () => {
  it('builds a mapped StatefulSet from the live object with the mapped size', () => {
    const desired = readTargetDesired(new Map([['apps/victoria/values.yaml', values]]), {
      globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [source('server.persistentVolume.size')],
    });
    assert.deepEqual(desired.errors, []);
    const live = liveSet({ namespace: 'logs', name: 'victoria-logs', templateNames: ['server-volume'], replicas: 2 });
    const [sts] = assembleDesired(desired, snapshot([{ namespace: 'logs', statefulSets: [live] }]));
    assert.equal(sts?.replicas, 2);
    assert.equal(sts?.templates[0]?.storageText, '10Gi');
    assert.equal(sts?.templates[0]?.storageClassName, 'standard');
    assert.deepEqual(sts?.templates[0]?.templateWithoutStorage, live.templates[0]?.templateWithoutStorage);
    assert.equal(sts?.templates[0]?.storageLocation.line, 6);
  });

  it('makes a set named by a manifest and a mapping an error at both places, and acts on neither', () => {
    const desired = readTargetDesired(new Map([['apps/victoria/values.yaml', values], ['k8s/pg.yaml', pgManifest]]), {
      globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [source('server.persistentVolume.size')],
    });
    assert.deepEqual(desired.statefulSets, []);
    assert.deepEqual(desired.sizeValues, []);
    assert.deepEqual(desired.errors.map((e) => `${e.path}:${e.line}`), ['apps/victoria/values.yaml:6', 'k8s/pg.yaml:1']);
    assert.match(desired.errors[1]?.message ?? '', /StatefulSet logs\/victoria-logs is defined by this manifest and sized by the size source at apps\/victoria\/values\.yaml:6/);
  });

  it('plans a mapped set like a manifest: resize from the live size, and only the mapped templates', () => {
    const desired = readTargetDesired(new Map([['apps/victoria/values.yaml', values]]), {
      globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [source('server.persistentVolume.size')],
    });
    const live = liveSet({ namespace: 'logs', name: 'victoria-logs', templateNames: ['server-volume', 'cache'], replicas: 1, size: '5Gi' });
    const world = snapshot([{ namespace: 'logs', statefulSets: [live], pvcs: [livePvc('server-volume-victoria-logs-0', { namespace: 'logs', request: '5Gi' })] }]);
    const [plan] = planTarget(assembleDesired(desired, world), world, { allowedNamespaces: ['*'] });
    assert.equal(plan?.outcome, 'planned');
    assert.deepEqual(plan?.templates.map((t) => `${t.templateName} ${t.action} ${t.from?.text ?? '?'} -> ${t.to.text}`), ['server-volume resize 5Gi -> 10Gi']);
    assert.deepEqual(plan?.templates[0]?.pvcsToPatch, ['server-volume-victoria-logs-0']);
  });

  it('blocks a mapping whose template the live set does not have, saying which templates it has', () => {
    const desired = readTargetDesired(new Map([['apps/victoria/values.yaml', values]]), {
      globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [source('server.persistentVolume.size', { template: 'data' })],
    });
    const live = liveSet({ namespace: 'logs', name: 'victoria-logs', templateNames: ['server-volume'] });
    const world = snapshot([{ namespace: 'logs', statefulSets: [live] }]);
    const [plan] = planTarget(assembleDesired(desired, world), world, { allowedNamespaces: ['*'] });
    assert.equal(plan?.templates[0]?.action, 'blocked');
    assert.equal(plan?.templates[0]?.reasons[0]?.message,
      'the size source at apps/victoria/values.yaml:6 (server.persistentVolume.size) names volumeClaimTemplate data, which the live StatefulSet logs/victoria-logs does not have '
      + '(it has server-volume): its value is never applied; did you mean server-volume? Set the mapping\'s template to one of the set\'s volumeClaimTemplates');
  });
});
