// Where a StatefulSet's template values (size, class) changed on the branch, read from Git's history of its file: the
// commit that introduced what Git asks now (its progress is reported there), and those that introduced earlier values
// (a replaced one's ending is reported there: report-endings.ts).
import { readDesiredState } from '../domain/manifests.ts';
import { parseQuantity, QuantityError } from '../domain/quantity.ts';
import { readSizeSources } from '../domain/size-sources.ts';
import type { GitHistoryPort } from '../engine/ports.ts';
import type { PassTarget, StatefulSetReport } from '../engine/run-pass.ts';

/** A template's value at a commit: its size in bytes, and its class when it names one. */
export interface TemplateValue {
  bytes: bigint;
  className: string | undefined;
}

/** A commit where one of the set's template values differs from its parent's, and the values it leaves. */
export interface ValueChange {
  sha: string;
  values: ReadonlyMap<string, TemplateValue>;
}

/** Whether `value` is what a status records as `desiredSize` and `desiredClass`. */
export function isValue(value: TemplateValue | undefined, desiredSize: string, desiredClass: string | undefined): boolean {
  if (value === undefined || value.className !== desiredClass) return false;
  try {
    return parseQuantity(desiredSize).bytes === value.bytes;
  } catch (error) {
    if (error instanceof QuantityError) return false;
    throw error;
  }
}

/**
 * The commits on `branch` touching `path` where a storage value (or a volumeAttributesClassName) of this StatefulSet
 * differs from its parent, newest first, read until `enough` says so (or history ends).
 */
export async function valueChanges(
  repository: GitHistoryPort, branch: string, path: string, sts: Pick<StatefulSetReport, 'namespace' | 'name'>, target: PassTarget,
  enough: (found: readonly ValueChange[]) => boolean,
): Promise<ValueChange[]> {
  const read = new Map<string, Promise<Map<string, TemplateValue> | undefined>>();
  const valuesAt = (ref: string | undefined): Promise<Map<string, TemplateValue> | undefined> => {
    if (ref === undefined) return Promise.resolve(undefined);
    let values = read.get(ref);
    if (!values) {
      values = templateValuesAt(repository, ref, path, sts, target);
      read.set(ref, values);
    }
    return values;
  };
  const found: ValueChange[] = [];
  for (const commit of await repository.commitsTouching(branch, path)) {
    if (enough(found)) break;
    const values = await valuesAt(commit.sha);
    if (text(values) !== text(await valuesAt(commit.parent))) found.push({ sha: commit.sha, values: values ?? new Map() });
  }
  return found;
}

function text(values: ReadonlyMap<string, TemplateValue> | undefined): string | undefined {
  return values === undefined ? undefined : [...values].map(([name, v]) => `${name}=${v.bytes}${v.className !== undefined ? `@${v.className}` : ''}`).join(',');
}

async function templateValuesAt(
  repository: GitHistoryPort, ref: string, path: string, sts: Pick<StatefulSetReport, 'namespace' | 'name'>, target: PassTarget,
): Promise<Map<string, TemplateValue> | undefined> {
  const file = await repository.fileAt(ref, path);
  if (file === undefined) return undefined;
  // A set sized by size sources changed where its mapped value changed.
  const mapped = (target.sizeSources ?? []).filter((s) => s.statefulSet === `${sts.namespace}/${sts.name}` && s.file === path);
  if (mapped.length > 0) {
    const read = readSizeSources(new Map([[path, file]]), mapped);
    if (read.values.length === 0 && read.classValues.length === 0) return undefined;
    const values = new Map<string, TemplateValue>();
    for (const v of read.values) values.set(v.template, { bytes: v.storage.bytes, className: undefined });
    for (const v of read.classValues) values.set(v.template, { bytes: values.get(v.template)?.bytes ?? -1n, className: v.className });
    return values;
  }
  const state = readDesiredState(new Map([[path, file]]), { globs: [path], defaultNamespace: target.defaultNamespace });
  const found = state.statefulSets.find((s) => s.namespace === sts.namespace && s.name === sts.name);
  return found ? new Map(found.templates.map((t) => [t.name, { bytes: t.storage.bytes, className: t.volumeAttributesClassName }])) : undefined;
}
