// A size source that maps a template's volumeAttributesClassName (`value: volumeAttributesClassName`, KEP-3751): read
// and located like a size, refused with a located error when it is not a class name, assembled into the mapped set
// (the live size kept when only the class is mapped) and planned like a manifest's class change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../functions/domain/config.ts';
import type { ClusterSnapshot } from '../../functions/domain/live-state.ts';
import { findClassValue, readSizeSources, replaceSizeValue, type SizeSource } from '../../functions/domain/size-sources.ts';
import { assembleDesired, readTargetDesired } from '../../functions/engine/desired/desired-input.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { pgWorld } from '../engine/builders.ts';

const values = `# pg chart values (prod)
primary:
  persistence:
    size: 20Gi
    volumeAttributesClassName: "gold"   # performance tier
  tiers: { fast: 7, none: "", list: [gold] }
`;
const file = 'apps/pg/values.yaml';

function classSource(path: string, overrides: Partial<SizeSource> = {}): SizeSource {
  return { file, path, statefulSet: 'db/pg', template: 'data', value: 'volumeAttributesClassName', ...overrides };
}

/** db/pg, 3 replicas at 10Gi, template and PVCs in class silver, on a v1.34 server serving silver and gold. */
function silverWorld(): ClusterSnapshot {
  const world = pgWorld(Object.fromEntries([0, 1, 2].map((i) => [i, { volumeAttributesClassName: 'silver', currentVolumeAttributesClassName: 'silver' }])));
  for (const template of world.namespaces.get('db')?.statefulSets[0]?.templates ?? []) template.volumeAttributesClassName = 'silver';
  for (const storageClass of world.storageClasses) storageClass.provisioner = 'ebs.csi.aws.com';
  world.server = { major: 1, minor: 34, gitVersion: 'v1.34.9' };
  world.volumeAttributesClasses = ['silver', 'gold'].map((name) => ({ name, driverName: 'ebs.csi.aws.com', parameters: {}, deleting: false }));
  return world;
}

describe('a class mapped from a values file', () => {
  it('is read with its line and the byte range of its source text, apart from the sizes', () => {
    const reading = readSizeSources(new Map([[file, values]]), [classSource('primary.persistence.volumeAttributesClassName')]);
    assert.deepEqual(reading.errors, []);
    assert.deepEqual(reading.values, []);
    const [value] = reading.classValues;
    assert.equal(value?.className, 'gold');
    assert.deepEqual(value?.location, { path: file, line: 5, column: 32 });
    assert.equal(values.slice(...(value?.range ?? [0, 0])), '"gold"');
  });

  it('refuses a missing path and a value that is not a class name, each at its line', () => {
    const { classValues, errors } = readSizeSources(new Map([[file, values]]), [
      classSource('primary.persistence.class'), classSource('primary.tiers.fast'), classSource('primary.tiers.none'), classSource('primary.tiers.list'),
    ]);
    assert.deepEqual(classValues, []);
    assert.deepEqual(errors.map((e) => e.line), [3, 6, 6, 6]);
    assert.equal(errors[0]?.message, 'class source db/pg data (apps/pg/values.yaml primary.persistence.class): primary.persistence has no key "class" (the path primary.persistence.class is missing)');
    assert.match(errors[1]?.message ?? '', /the value 7 is not a VolumeAttributesClass name; write the class's name as a string, such as gold$/);
    assert.match(errors[2]?.message ?? '', /the value "" is not a VolumeAttributesClass name/);
    assert.match(errors[3]?.message ?? '', /the value is not a single class name \(found a mapping, a sequence or nothing\)/);
  });

  it('edits only the bytes of the value (the class recovery)', () => {
    const value = findClassValue(values, classSource('primary.persistence.volumeAttributesClassName'));
    assert.ok(value);
    assert.equal(replaceSizeValue(values, value, 'silver'), values.replace('volumeAttributesClassName: "gold"   # performance', 'volumeAttributesClassName: "silver"   # performance'));
    assert.throws(() => replaceSizeValue(values, value, 'Gold tier'), /"Gold tier" is not a VolumeAttributesClass name/);
  });

  it('is planned like a manifest\'s class change: the live size kept, the links on the value\'s line', () => {
    const desired = readTargetDesired(new Map([[file, values]]), {
      globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [classSource('primary.persistence.volumeAttributesClassName')],
    });
    const world = silverWorld();
    const [sts] = assembleDesired(desired, world);
    const template = sts?.templates[0];
    assert.equal(template?.volumeAttributesClassName, 'gold');
    assert.equal(template?.storageText, '10Gi');
    assert.deepEqual([template?.storageLocation.line, template?.classLocation?.line], [5, 5]);
    const [plan] = planTarget(sts ? [sts] : [], world, { allowedNamespaces: ['*'] });
    const planned = plan?.templates[0];
    assert.equal(planned?.action, 'resize', planned?.reasons.map((r) => r.message).join('; '));
    assert.deepEqual(planned?.volumeAttributesClass, { from: 'silver', to: 'gold' });
    assert.equal(planned?.to.text, '10Gi');
    assert.deepEqual(planned?.pvcsToPatch, ['data-pg-0', 'data-pg-1', 'data-pg-2']);
  });

  it('is blocked on a server that does not serve classes, naming it (as a manifest\'s class is)', () => {
    const desired = readTargetDesired(new Map([[file, values]]), {
      globs: ['k8s/**'], defaultNamespace: 'default', sizeSources: [classSource('primary.persistence.volumeAttributesClassName')],
    });
    const world = silverWorld();
    world.server = { major: 1, minor: 26, gitVersion: 'v1.26.5' };
    delete world.volumeAttributesClasses;
    const [plan] = planTarget(assembleDesired(desired, world), world, { allowedNamespaces: ['*'] });
    assert.equal(plan?.templates[0]?.action, 'blocked');
    assert.match(plan?.templates[0]?.reasons[0]?.message ?? '', /the API server is v1\.26\.5: VolumeAttributesClass needs Kubernetes 1\.34/);
  });

  it('joins a size mapped for the same template: one template with both, the size\'s line for the size', () => {
    const desired = readTargetDesired(new Map([[file, values]]), {
      globs: ['k8s/**'], defaultNamespace: 'default',
      sizeSources: [classSource('primary.persistence.volumeAttributesClassName'), classSource('primary.persistence.size', { value: undefined })],
    });
    const world = silverWorld();
    const [sts] = assembleDesired(desired, world);
    assert.equal(sts?.templates.length, 1);
    assert.deepEqual([sts?.templates[0]?.storageText, sts?.templates[0]?.volumeAttributesClassName, sts?.templates[0]?.storageLocation.line], ['20Gi', 'gold', 4]);
    const [plan] = planTarget(sts ? [sts] : [], world, { allowedNamespaces: ['*'] });
    assert.equal(plan?.templates[0]?.action, 'resize', plan?.templates[0]?.reasons.map((r) => r.message).join('; '));
    assert.deepEqual([plan?.templates[0]?.to.text, plan?.templates[0]?.volumeAttributesClass?.to], ['20Gi', 'gold']);
  });
});

describe('a class mapping in the configuration', () => {
  const config = (sources: string): string => `
targets:
  - name: prod
    source: { local: { directory: ./repo, paths: ["k8s/**/*.yaml"] } }
    cluster: { kubeconfig: { path: ./kubeconfig } }
    namespaces: { allow: [db] }
    sizeSources:
${sources}`;
  const problemsOf = (text: string): string[] => {
    try {
      parseConfig(text, 'test.yaml', '/etc/sts');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
    assert.fail('expected a ConfigError');
  };
  const size = '      - { file: v.yaml, path: a.size, statefulSet: db/pg, template: data }';
  const klass = (path = 'a.class', extra = ''): string => `      - { file: v.yaml, path: ${path}, statefulSet: db/pg, template: data, value: volumeAttributesClassName${extra} }`;

  it('takes a size and a class mapped for one template', () => {
    const parsed = parseConfig(config(`${size}\n${klass()}`), 'test.yaml', '/etc/sts');
    assert.deepEqual(parsed.targets[0]?.sizeSources.map((s) => s.value), [undefined, 'volumeAttributesClassName']);
  });

  it('refuses a template\'s class mapped twice, guardrails on a class mapping, and an unknown value', () => {
    assert.deepEqual(problemsOf(config(`${klass()}\n${klass('b.class')}`)), [
      "target \"prod\": sizeSources[1] maps db/pg template data's volumeAttributesClassName, which sizeSources[0] maps already; one template takes its class from one place",
    ]);
    assert.deepEqual(problemsOf(config(klass('a.class', ', guardrails: { maxSize: 1Ti }'))), [
      "target \"prod\": sizeSources[0].guardrails limit sizes, and this mapping names a class (value: volumeAttributesClassName); put them on the template's size mapping or the target",
    ]);
    assert.deepEqual(problemsOf(config('      - { file: v.yaml, path: a, statefulSet: db/pg, template: data, value: iops }')), [
      'target "prod": sizeSources[0].value "iops" must be one of storage, volumeAttributesClassName',
    ]);
  });
});
