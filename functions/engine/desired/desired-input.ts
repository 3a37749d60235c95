// What a target asks for at one commit: StatefulSets from raw manifests plus sizes and classes mapped from values
// files (size sources). A mapped StatefulSet is the live object with the mapped sizes: assembled once the cluster has been read,
// so planning, dry runs, apply and feedback treat both kinds alike. Pure.
import type { DesiredStatefulSet, DesiredTemplate, LocatedError } from '../../domain/desired-state.ts';
import type { ClusterSnapshot } from '../../domain/live-state.ts';
import { fileTooLarge, toolAnnotationPrefix } from '../../domain/manifests.ts';
import { parseQuantity } from '../../domain/quantity.ts';
import { sourceLimits } from '../../domain/source-limits.ts';
import { readSizeSources, type ClassValue, type SizeSource, type SizeValue } from '../../domain/size-sources.ts';
import { readDesiredStateReused } from './desired-state-cache.ts';
import { statusAnnotation } from '../report/template-status.ts';

export interface DesiredInput {
  /** StatefulSets read from raw manifests. */
  statefulSets: readonly DesiredStatefulSet[];
  /** Sizes read through the target's size sources. */
  sizeValues: readonly SizeValue[];
  /** Classes read through the size sources that map `value: volumeAttributesClassName` (none when absent). */
  classValues?: readonly ClassValue[];
}

export interface TargetDesired extends DesiredInput {
  errors: LocatedError[];
}

export interface DesiredSourceOptions {
  globs: readonly string[];
  defaultNamespace: string;
  sizeSources?: readonly SizeSource[];
}

/** `tooLarge`: files a source left unread for their size (GitSnapshot.tooLarge), each a located error here. */
export function readTargetDesired(
  files: ReadonlyMap<string, string>, options: DesiredSourceOptions, tooLarge: ReadonlyMap<string, number> = new Map(),
): TargetDesired {
  // Parsed once per content: a warm process skips re-parsing every manifest when no file changed.
  const manifests = readDesiredStateReused(files, { globs: options.globs, defaultNamespace: options.defaultNamespace });
  const sized = readSizeSources(files, options.sizeSources ?? []);
  const unread = [...tooLarge].map(([path, bytes]) => fileTooLarge(path, bytes, sourceLimits.maxFileBytes));
  // A size source's file left unread is not missing: its one error is the size.
  const errors = [...unread, ...manifests.errors, ...sized.errors.filter((e) => !tooLarge.has(e.path))];
  // A set named by a manifest and by a mapping has two truths: an error at both places, and neither is acted on.
  const mappedValues: ReadonlyArray<SizeValue | ClassValue> = [...sized.values, ...sized.classValues];
  const mappedKeys = new Set(mappedValues.map((v) => `${v.namespace}/${v.name}`));
  const conflicting = new Set(manifests.statefulSets.map((s) => `${s.namespace}/${s.name}`).filter((key) => mappedKeys.has(key)));
  for (const key of conflicting) {
    const manifest = manifests.statefulSets.find((s) => `${s.namespace}/${s.name}` === key);
    const values = mappedValues.filter((v) => `${v.namespace}/${v.name}` === key);
    if (!manifest) continue;
    const mappedAt = values.map((v) => `${v.location.path}:${v.location.line} (${v.source.path})`).join(', ');
    errors.push({ ...manifest.location, message: `StatefulSet ${key} is defined by this manifest and sized by the size source at ${mappedAt}; name it in one place only (remove the mapping or stop reading this manifest)` });
    for (const value of values) {
      errors.push({ ...value.location, message: `StatefulSet ${key} is sized by this value (${value.source.path}) and defined by the manifest at ${manifest.location.path}:${manifest.location.line}; name it in one place only` });
    }
  }
  errors.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
  return {
    statefulSets: manifests.statefulSets.filter((s) => !conflicting.has(`${s.namespace}/${s.name}`)),
    sizeValues: sized.values.filter((v) => !conflicting.has(`${v.namespace}/${v.name}`)),
    classValues: sized.classValues.filter((v) => !conflicting.has(`${v.namespace}/${v.name}`)),
    errors,
  };
}

/** Namespaces the desired state touches (the cluster is read in these). */
export function desiredNamespaces(desired: DesiredInput): string[] {
  return [...new Set([...desired.statefulSets.map((s) => s.namespace), ...mappedValuesOf(desired).map((v) => v.namespace)])];
}

/** Every mapped value, sizes then classes. */
export function mappedValuesOf(desired: DesiredInput): Array<SizeValue | ClassValue> {
  return [...desired.sizeValues, ...(desired.classValues ?? [])];
}

/**
 * Every desired StatefulSet: the manifests' as read, then one per mapped StatefulSet built from the live object
 * (replicas, policy, templates, classes) with the mapped sizes and classes. A mapped set absent from the cluster keeps
 * only its mapped values: the plan reports it missing, as it does for a manifest.
 */
export function assembleDesired(desired: DesiredInput, snapshot: ClusterSnapshot): DesiredStatefulSet[] {
  const byKey = new Map<string, Array<SizeValue | ClassValue>>();
  for (const value of mappedValuesOf(desired)) {
    const key = `${value.namespace}/${value.name}`;
    byKey.set(key, [...(byKey.get(key) ?? []), value]);
  }
  const mapped: DesiredStatefulSet[] = [];
  for (const values of byKey.values()) {
    const [first] = values;
    if (!first) continue;
    const namespace = snapshot.namespaces.get(first.namespace);
    const live = namespace?.statefulSets.find((s) => s.name === first.name && !s.deleting)
      ?? namespace?.statefulSets.find((s) => s.name === first.name);
    const templateNames = [...new Set(values.map((v) => v.template))];
    const templates = templateNames.map((templateName): DesiredTemplate => {
      const liveTemplate = live?.templates.find((t) => t.name === templateName);
      const size = values.find((v): v is SizeValue => v.template === templateName && 'storage' in v);
      const classValue = values.find((v): v is ClassValue => v.template === templateName && 'className' in v);
      // A template whose class alone is mapped keeps the live size; its links point at the class's value.
      const storage = size?.storage ?? liveTemplate?.storage ?? parseQuantity('0');
      const where = size ?? classValue ?? first;
      return {
        name: templateName,
        storageClassName: liveTemplate?.storageClassName,
        storage,
        storageText: storage.text,
        storageLocation: where.location,
        storageRange: size?.range ?? [0, 0],
        ...(classValue ? { volumeAttributesClassName: classValue.className, classLocation: classValue.location, classRange: classValue.range } : {}),
        // Everything but the mapped values is the live template's: a chart's other template fields are its own business.
        templateWithoutStorage: liveTemplate?.templateWithoutStorage ?? {},
      };
    });
    mapped.push({
      namespace: first.namespace,
      name: first.name,
      replicas: live?.replicas ?? 0,
      podManagementPolicy: live?.podManagementPolicy ?? 'OrderedReady',
      templates,
      location: first.location,
      sizedBy: values.map((v) => v.source),
      // A chart renders the set's annotations from Git; here they are read as the live set has them.
      ...liveToolAnnotations(live?.annotations),
    });
  }
  return [...desired.statefulSets, ...mapped];
}

/** The live set's `sts-volume-gitops.io/` annotations but the tool's own status, unlocated (they are not read from Git here). */
function liveToolAnnotations(annotations: Record<string, string> | undefined): Pick<DesiredStatefulSet, 'toolAnnotations'> {
  const found = Object.entries(annotations ?? {}).filter(([name]) => name.startsWith(toolAnnotationPrefix) && name !== statusAnnotation)
    .map(([name, value]) => ({ name, value, location: undefined }));
  return found.length > 0 ? { toolAnnotations: found } : {};
}
