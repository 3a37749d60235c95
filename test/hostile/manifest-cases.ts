// The hostile manifest corpus: files a person (or an attacker with write access to a branch) could put in Git, each
// with what must come of it: a located error in that file, or a plan for db/pg. Read by manifests.test.ts.
import { statefulSet } from './manifest-world.ts';

export type Expectation =
  | { error: RegExp; file: string }
  | { plan: 'resize'; to: string }
  | { plan: 'unchanged' }
  | { plan: 'blocked'; reason: RegExp }
  | { plan: 'namespace-not-allowed' | 'missing-in-cluster'; set: string }
  /** Nothing for the tool in these files: no error, no StatefulSet. */
  | { nothing: true };

export interface ManifestCase {
  name: string;
  files: Record<string, string | Buffer>;
  expect: Expectation;
}

const pgFile = 'k8s/pg.yaml';
const pg = (parts: Parameters<typeof statefulSet>[0]): Record<string, string> => ({ [pgFile]: statefulSet(parts) });
const errorIn = (error: RegExp, file = pgFile): Expectation => ({ error, file });

/** Billion laughs: nine levels of nine aliases (9^9 values), well under the alias count limit of 100. */
function laughs(indent: string, root = 'lol'): string {
  const lines = [`${indent}a0: &a0 "${root}"`];
  for (let level = 1; level <= 9; level++) lines.push(`${indent}a${level}: &a${level} [${Array(9).fill(`*a${level - 1}`).join(', ')}]`);
  return lines.join('\n');
}

/** An alias bomb as one flow value: anchors defined inside nested sequences (usable as a label or annotation value). */
function inlineBomb(levels = 8): string {
  let value = '&c0 lol';
  for (let level = 1; level <= levels; level++) value = `&c${level} [${value}, ${Array(8).fill(`*c${level - 1}`).join(', ')}]`;
  return value;
}

/** The text with `marker` replaced by raw bytes (not valid UTF-8). */
function withRawBytes(text: string, marker: string, bytes: number[]): Buffer {
  const [before, after] = text.split(marker);
  return Buffer.concat([Buffer.from(before ?? ''), Buffer.from(bytes), Buffer.from(after ?? '')]);
}

const configMap = (name: string, data: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: ${name}, namespace: db }\ndata:\n${data}\n`;

const bombs: ManifestCase[] = [
  { name: 'a billion-laughs document before the StatefulSet in the same file', files: { [pgFile]: `${laughs('')}\n---\n${statefulSet({})}` }, expect: errorIn(/expands through its \d+ YAML aliases to more than 100000 values/) },
  { name: 'a billion-laughs ConfigMap in a file of its own', files: { 'k8s/laughs.yaml': configMap('laughs', laughs('  ')) }, expect: errorIn(/expands through its \d+ YAML aliases/, 'k8s/laughs.yaml') },
  { name: 'an alias bomb as a StatefulSet label', files: pg({ labels: `{ app: pg, bomb: ${inlineBomb()} }` }), expect: errorIn(/expands through its \d+ YAML aliases/) },
  { name: 'an alias bomb as an annotation', files: pg({ annotations: `{ note: ${inlineBomb()} }` }), expect: errorIn(/expands through its \d+ YAML aliases/) },
  { name: 'an alias bomb inside the volumeClaimTemplate (issue 13 item 6)', files: pg({ templateMetadata: `labels: { bomb: ${inlineBomb()} }` }), expect: errorIn(/expands through its \d+ YAML aliases/) },
  { name: 'an alias bomb as the storage value itself', files: pg({ storage: inlineBomb() }), expect: errorIn(/expands through its \d+ YAML aliases/) },
  { name: 'anchors in one document, aliases in the next (they do not cross documents)', files: { [pgFile]: `${configMap('a', '  x: &big lol')}---\n${statefulSet({ annotations: '{ y: *big }' })}` }, expect: errorIn(/YAML (syntax )?error/) },
  { name: 'more aliases than the limit, each harmless', files: pg({ annotations: `{ a: &v x, ${Array.from({ length: 120 }, (_, i) => `k${i}: *v`).join(', ')} }` }), expect: errorIn(/uses 120 YAML aliases, over the limit of 100/) },
  { name: 'a merge key (<<) over an anchor, used as written', files: { [pgFile]: statefulSet({ labels: '&labels { app: pg, tier: db }', annotations: '{ <<: *labels, extra: "1" }', storage: '30Gi' }) }, expect: { plan: 'resize', to: '30Gi' } },
];

const depth = (n: number, open: string, close: string, inner = 'x'): string => `${open.repeat(n)}${inner}${close.repeat(n)}`;
const deepBlock = (n: number): string => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ` leaf`;

const sizes: ManifestCase[] = [
  { name: 'a 10,000-deep flow sequence', files: { 'k8s/deep.yaml': `deep: ${depth(10_000, '[', ']')}\n` }, expect: errorIn(/./, 'k8s/deep.yaml') },
  { name: 'a 10,000-deep flow mapping in an annotation', files: pg({ annotations: `{ deep: ${depth(10_000, '{a: ', '}')} }` }), expect: errorIn(/./) },
  { name: 'a 1,500-deep block mapping', files: { 'k8s/deep-block.yaml': deepBlock(1_500) }, expect: errorIn(/./, 'k8s/deep-block.yaml') },
  { name: 'a file over 1 MiB', files: { 'k8s/huge.yaml': `${statefulSet({ storage: '30Gi' })}# ${'x'.repeat(1_100_000)}\n` }, expect: errorIn(/file is 1\.0 MiB \([\d,]+ bytes\), over the limit of 1 MiB \(1,048,576 bytes\); it was not read/, 'k8s/huge.yaml') },
  { name: 'a file of 501 documents', files: { 'k8s/many-docs.yaml': Array.from({ length: 501 }, (_, i) => configMap(`c${i}`, '  a: b')).join('---\n') }, expect: errorIn(/file has 501 YAML documents, over the limit of 500/, 'k8s/many-docs.yaml') },
  { name: '400 small files beside the StatefulSet', files: { ...Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k8s/many/c${i}.yaml`, configMap(`c${i}`, '  a: b')])), ...pg({ storage: '25Gi' }) }, expect: { plan: 'resize', to: '25Gi' } },
  { name: 'a 900 KB single-line string value next to the StatefulSet', files: { [pgFile]: `${configMap('big', `  blob: "${'y'.repeat(900_000)}"`)}---\n${statefulSet({ storage: '30Gi' })}` }, expect: { plan: 'resize', to: '30Gi' } },
  { name: 'a storage value of 10,000 digits (the message quotes 64 of them)', files: pg({ storage: `"${'9'.repeat(10_000)}Gi"` }), expect: errorIn(/invalid quantity "9{64}"… \(10002 characters\): larger than the largest quantity/) },
  { name: 'a comment-only file', files: { 'k8s/notes.yaml': '# nothing here\n# at all\n' }, expect: { nothing: true } },
  { name: 'an empty file', files: { 'k8s/empty.yaml': '' }, expect: { nothing: true } },
];

const quantities: ManifestCase[] = [
  { name: 'a fractional binary size (1.5Ti)', files: pg({ storage: '1.5Ti' }), expect: { plan: 'resize', to: '1.5Ti' } },
  { name: 'a decimal exponent (2e11)', files: pg({ storage: '2e11' }), expect: { plan: 'resize', to: '2e11' } },
  { name: 'a quoted decimal exponent ("2E11")', files: pg({ storage: '"2E11"' }), expect: { plan: 'resize', to: '2E11' } },
  { name: 'a plain integer of bytes (JSON number)', files: pg({ storage: '21474836480' }), expect: { plan: 'resize', to: '21474836480' } },
  { name: 'a leading plus sign (+20Gi)', files: pg({ storage: '+20Gi' }), expect: { plan: 'resize', to: '20Gi' } },
  { name: 'a leading dot (.5Ti)', files: pg({ storage: '.5Ti' }), expect: { plan: 'resize', to: '.5Ti' } },
  { name: 'zero', files: pg({ storage: '0' }), expect: { plan: 'blocked', reason: /not above the current capacity|above|zero|positive/i } },
  { name: 'a negative size (-20Gi)', files: pg({ storage: '-20Gi' }), expect: errorIn(/./) },
  { name: 'a number too large for a double (1e400)', files: pg({ storage: '1e400' }), expect: errorIn(/./) },
  { name: 'a quoted 1e400', files: pg({ storage: '"1e400"' }), expect: errorIn(/./) },
  { name: 'a size larger than any disk (9999999Ei)', files: pg({ storage: '9999999Ei' }), expect: errorIn(/./) },
  { name: 'a unit Kubernetes does not know (20Gb)', files: pg({ storage: '20Gb' }), expect: errorIn(/20Gb/) },
  { name: 'a lower-case unit (20gi)', files: pg({ storage: '20gi' }), expect: errorIn(/20gi/) },
  { name: 'a space before the unit (20 Gi)', files: pg({ storage: '20 Gi' }), expect: errorIn(/./) },
  // The API server trims a quoted quantity before parsing it (resource.Quantity's UnmarshalJSON): so does the tool.
  { name: 'surrounding whitespace in quotes (" 30Gi ")', files: pg({ storage: '" 30Gi "' }), expect: { plan: 'resize', to: '30Gi' } },
  { name: 'a fraction of a byte (0.5)', files: pg({ storage: '"0.5"' }), expect: { plan: 'blocked', reason: /./ } },
  // A fractional byte count is a valid quantity; Kubernetes rounds it up to whole bytes.
  { name: 'a float of bytes (21474836480.5)', files: pg({ storage: '21474836480.5' }), expect: { plan: 'resize', to: '21474836481' } },
  // YAML reads 0x... as an integer, as kubectl's YAML-to-JSON conversion does: the API server gets 21474836480.
  { name: 'a hexadecimal number (0x500000000)', files: pg({ storage: '0x500000000' }), expect: { plan: 'resize', to: '20Gi' } },
  { name: 'a size below the live one (5Gi)', files: pg({ storage: '5Gi' }), expect: { plan: 'blocked', reason: /5Gi is not above the current capacity/ } },
  { name: 'the live size written another way (10240Mi)', files: pg({ storage: '10240Mi' }), expect: { plan: 'unchanged' } },
  { name: 'null', files: pg({ storage: '~' }), expect: errorIn(/storage/) },
  { name: 'a boolean', files: pg({ storage: 'true' }), expect: errorIn(/storage/) },
  { name: 'a sequence', files: pg({ storage: '[20Gi]' }), expect: errorIn(/storage/) },
  { name: 'an empty string', files: pg({ storage: '""' }), expect: errorIn(/./) },
];

const encodings: ManifestCase[] = [
  { name: 'Latin-1 bytes in a comment', files: { [pgFile]: Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\n'), Buffer.from(statefulSet({ storage: '30Gi' }))]) }, expect: { plan: 'resize', to: '30Gi' } },
  { name: 'invalid UTF-8 inside the storage value', files: { [pgFile]: withRawBytes(statefulSet({ storage: '30G@@' }), '@@', [0xff, 0xfe]) }, expect: errorIn(/./) },
  { name: 'a UTF-8 byte order mark', files: { [pgFile]: `\uFEFF${statefulSet({ storage: '30Gi' })}` }, expect: { plan: 'resize', to: '30Gi' } },
  { name: 'a UTF-16 file (NUL bytes everywhere)', files: { [pgFile]: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(statefulSet({ storage: '30Gi' }), 'utf16le')]) }, expect: errorIn(/./) },
  { name: 'a NUL byte in the middle', files: { [pgFile]: statefulSet({ storage: '30Gi' }).replace('serviceName', 'service\u0000Name') }, expect: errorIn(/./) },
  { name: 'Windows line endings', files: { [pgFile]: statefulSet({ storage: '30Gi' }).replace(/\n/g, '\r\n') }, expect: { plan: 'resize', to: '30Gi' } },
  { name: 'tabs for indentation', files: { [pgFile]: statefulSet({ storage: '30Gi' }).replace('  serviceName', '\tserviceName') }, expect: errorIn(/./) },
  { name: 'a right-to-left override in a label value', files: pg({ labels: '{ app: pg, note: "\u202Egnp.exe" }', storage: '30Gi' }), expect: { plan: 'resize', to: '30Gi' } },
];

const duplicates: ManifestCase[] = [
  { name: 'storage written twice in one mapping', files: { [pgFile]: statefulSet({ storage: '30Gi' }).replace('storage: 30Gi', 'storage: 30Gi\n            storage: 40Gi') }, expect: errorIn(/unique|duplicate/i) },
  { name: 'metadata written twice', files: { [pgFile]: statefulSet({ storage: '30Gi' }).replace('spec:\n  serviceName', 'metadata: { name: other }\nspec:\n  serviceName') }, expect: errorIn(/unique|duplicate/i) },
  { name: 'the same StatefulSet in two files', files: { ...pg({ storage: '30Gi' }), 'k8s/pg-copy.yaml': statefulSet({ storage: '40Gi' }) }, expect: errorIn(/StatefulSet db\/pg is defined more than once \(also at k8s\/pg-copy\.yaml:1\)/) },
  { name: 'the same StatefulSet twice in one file', files: { [pgFile]: `${statefulSet({ storage: '30Gi' })}---\n${statefulSet({ storage: '40Gi' })}` }, expect: errorIn(/defined more than once/) },
  { name: 'one name in two namespaces (not a duplicate)', files: { ...pg({ storage: '30Gi' }), 'k8s/pg-cache.yaml': statefulSet({ namespace: 'cache' }) }, expect: { plan: 'resize', to: '30Gi' } },
];

const namespaces: ManifestCase[] = [
  { name: 'a namespace outside the allowlist', files: { 'k8s/system.yaml': statefulSet({ name: 'etcd', namespace: 'kube-system' }) }, expect: { plan: 'namespace-not-allowed', set: 'kube-system/etcd' } },
  { name: 'a namespace that is a glob', files: { 'k8s/star.yaml': statefulSet({ name: 'star', namespace: '"*"' }) }, expect: errorIn(/metadata\/namespace must match pattern/, 'k8s/star.yaml') },
  { name: 'no namespace (the target default applies)', files: pg({ namespace: null, storage: '30Gi' }), expect: { plan: 'resize', to: '30Gi' } },
  { name: 'a StatefulSet the cluster does not have', files: { 'k8s/new.yaml': statefulSet({ name: 'brand-new' }) }, expect: { plan: 'missing-in-cluster', set: 'db/brand-new' } },
];

const structure: ManifestCase[] = [
  { name: 'apps/v1beta1', files: pg({ apiVersion: 'apps/v1beta1' }), expect: errorIn(/apiVersion "apps\/v1beta1" is not read.*change apiVersion to apps\/v1/) },
  { name: 'no apiVersion at all', files: { [pgFile]: statefulSet({}).replace('apiVersion: apps/v1\n', '') }, expect: errorIn(/apiVersion/) },
  { name: 'a replicas count as a string', files: pg({ replicas: '"2"' }), expect: errorIn(/replicas/) },
  { name: 'a second volumeClaimTemplate together with a size change (issue 13 item 7)', files: pg({ storage: '30Gi', extraTemplates: '    - metadata: { name: logs }\n      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }\n' }), expect: { plan: 'blocked', reason: /./ } },
  { name: 'a Python object tag', files: pg({ annotations: '{ x: !!python/object/apply:os.system ["id"] }' }), expect: errorIn(/./) },
  { name: 'a top-level scalar document', files: { 'k8s/scalar.yaml': 'just a string\n' }, expect: { nothing: true } },
  { name: 'a top-level sequence', files: { 'k8s/seq.yaml': '- a\n- b\n' }, expect: { nothing: true } },
  { name: 'a name that is markup', files: pg({ name: '"<img src=x onerror=alert(1)>"' }), expect: errorIn(/metadata\/name|name/) },
  { name: 'a path with spaces, @ and markup', files: { 'k8s/@org team/<b>x</b>.yaml': statefulSet({ storage: '30Gi' }) }, expect: { plan: 'resize', to: '30Gi' } },
  { name: 'an unterminated flow mapping', files: { [pgFile]: statefulSet({}).replace('labels: { app: pg }', 'labels: { app: pg') }, expect: errorIn(/YAML/) },
];

export const manifestCases: ManifestCase[] = [...bombs, ...sizes, ...quantities, ...encodings, ...duplicates, ...namespaces, ...structure];
