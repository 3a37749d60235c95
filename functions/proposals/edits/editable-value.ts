// Where a template's size or class lives in Git, and how to rewrite only that value's bytes: the manifest's storage
// request or volumeAttributesClassName (domain/manifest-edits.ts), or the value a size source maps from a Helm values
// file or a Kustomize patch (domain/size-sources.ts), whichever names the template. Every proposal edits through it.
// Pure.
import { readDesiredState, replaceClassValue, replaceStorageValue } from '../../domain/manifests.ts';
import { findClassValue, findSizeValue, mapsClass, replaceSizeValue, type SizeSource } from '../../domain/size-sources.ts';
import type { TemplateRef } from '../lifecycle/identity.ts';

/** The template's size (its storage request) or its VolumeAttributesClass name. */
export type EditableField = 'storage' | 'volumeAttributesClassName';

export interface EditableValue {
  field: EditableField;
  path: string;
  line: number;
  /** The value as written (`100Gi`, `gold`). */
  value: string;
  /** The file's text with only this value's bytes replaced (an error when that would change anything else). */
  replace(fileText: string, newValue: string): string;
}

/** The one value a proposal changes, where it lives, with the file's text before and after. */
export interface ProposedEdit {
  path: string;
  line: number;
  field: EditableField;
  from: string;
  to: string;
  /** The file at the commit the branch starts from. */
  before: string;
  /** The same with only the value's bytes replaced. */
  after: string;
}

/** What locates a value: the target's default namespace (for manifests without one) and its size sources. */
export interface EditableSources {
  defaultNamespace: string;
  sizeSources?: readonly SizeSource[] | undefined;
}

/**
 * The template's `field` in `fileText` (the file at `path`): the mapped value when a size source maps it for the
 * template, else the manifest's; undefined when the file does not hold it.
 */
export function editableValueIn(fileText: string, path: string, ref: TemplateRef, field: EditableField, sources: EditableSources): EditableValue | undefined {
  const forClass = field === 'volumeAttributesClassName';
  const mapping = (sources.sizeSources ?? []).find((s) => s.statefulSet === `${ref.namespace}/${ref.statefulSet}` && s.template === ref.template && mapsClass(s) === forClass);
  if (mapping) {
    if (mapping.file !== path) return undefined;
    const mapped = forClass ? findClassValue(fileText, mapping) : findSizeValue(fileText, mapping);
    if (!mapped) return undefined;
    const value = 'className' in mapped ? mapped.className : mapped.storage.text;
    return { field, path, line: mapped.location.line, value, replace: (text, newValue) => replaceSizeValue(text, mapped, newValue) };
  }
  const state = readDesiredState(new Map([[path, fileText]]), { globs: [path], defaultNamespace: sources.defaultNamespace });
  const found = state.statefulSets.find((s) => s.namespace === ref.namespace && s.name === ref.statefulSet)?.templates.find((t) => t.name === ref.template);
  if (!found) return undefined;
  if (!forClass) {
    return { field, path, line: found.storageLocation.line, value: found.storageText, replace: (text, newValue) => replaceStorageValue(text, found, newValue) };
  }
  if (found.volumeAttributesClassName === undefined || !found.classLocation) return undefined;
  return { field, path, line: found.classLocation.line, value: found.volumeAttributesClassName, replace: (text, newValue) => replaceClassValue(text, found, newValue) };
}

/** The one-line change of an edit, as a unified diff fragment. */
export function oneLineDiff(path: string, line: number, before: string, after: string): string {
  return `--- a/${path}\n+++ b/${path}\n@@ line ${line} @@\n-${before.split('\n')[line - 1] ?? ''}\n+${after.split('\n')[line - 1] ?? ''}`;
}
