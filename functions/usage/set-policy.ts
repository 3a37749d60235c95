// A StatefulSet's own growth policy, from annotations on its manifest in Git (reviewed like any change) over the
// target's `growth`: `sts-volume-gitops.io/growth: "off"`, `growth-used-percent`, `growth-full-within`, `growth-step`,
// `growth-max`. Each value is checked, and a wrong one is said at its file:line; a misspelt name under the tool's
// prefix gets "did you mean". Pure.
import type { SourceLocation, ToolAnnotation } from '../domain/desired-state.ts';
import { parseDuration } from '../domain/duration.ts';
import { closestName } from '../domain/similar-names.ts';
import { readGrowthMax, readGrowthStep, type GrowthPolicy, type GrowthStep } from '../domain/usage-config.ts';

export const growthAnnotations = {
  growth: 'sts-volume-gitops.io/growth',
  usedPercent: 'sts-volume-gitops.io/growth-used-percent',
  fullWithin: 'sts-volume-gitops.io/growth-full-within',
  step: 'sts-volume-gitops.io/growth-step',
  max: 'sts-volume-gitops.io/growth-max',
} as const;

/** The tool's other annotations a StatefulSet may carry (its status, written by the tool on the live object). */
const otherToolAnnotations = ['sts-volume-gitops.io/volume-claim-templates'];

/** Where a value of the policy comes from, for the sentences that quote it. */
export interface Setting<T> {
  value: T;
  /** `growth.max on the target`, or `sts-volume-gitops.io/growth-max at k8s/db/pg.yaml:6`. */
  setBy: string;
}

/** A set's policy: off (and by what), a list of problems (no growth until fixed), or each value with where it is set. */
export type SetPolicy =
  | { kind: 'off'; setBy: string }
  | { kind: 'invalid'; problems: string[] }
  | {
    kind: 'on';
    usedPercent: Setting<number>;
    fullWithinSeconds: Setting<number> | undefined;
    step: Setting<GrowthStep>;
    max: Setting<string>;
  };

/** `at k8s/db/pg.yaml:6`, or `on the live StatefulSet` for one read from the cluster (a set sized by size sources). */
function where(annotation: ToolAnnotation): string {
  return annotation.location ? `at ${place(annotation.location)}` : 'on the live StatefulSet';
}

function place(location: SourceLocation): string {
  return `${location.path}:${location.line}`;
}

/** The set's policy: the target's, overridden by the set's annotations. */
export function setPolicy(target: GrowthPolicy, annotations: readonly ToolAnnotation[] = []): SetPolicy {
  const problems: string[] = [];
  const known = new Set<string>(Object.values(growthAnnotations));
  const byName = new Map<string, ToolAnnotation>();
  for (const annotation of annotations) {
    if (known.has(annotation.name)) {
      byName.set(annotation.name, annotation);
      continue;
    }
    if (otherToolAnnotations.includes(annotation.name)) continue;
    const meant = misspeltAnnotation(annotation.name, [...known]);
    if (meant !== undefined || annotation.name.startsWith(growthAnnotations.growth)) {
      problems.push(`${annotation.name} ${where(annotation)} is not an annotation of this tool${meant !== undefined ? `; did you mean ${meant}?` : ` (its growth annotations: ${[...known].join(', ')})`}`);
    }
  }
  const text = (name: string): { value: string; annotation: ToolAnnotation } | undefined => {
    const annotation = byName.get(name);
    if (!annotation) return undefined;
    if (typeof annotation.value !== 'string') {
      problems.push(`${name} ${where(annotation)} is ${JSON.stringify(annotation.value)}, not a string: Kubernetes keeps annotations as strings, so quote it ("${String(annotation.value)}")`);
      return undefined;
    }
    return { value: annotation.value, annotation };
  };
  const label = (a: ToolAnnotation): string => `${a.name} ${where(a)}`;

  const switchValue = text(growthAnnotations.growth);
  if (switchValue && switchValue.value !== 'off' && switchValue.value !== 'on') {
    problems.push(`${label(switchValue.annotation)} is ${JSON.stringify(switchValue.value)}; write "off" to turn growth off for this StatefulSet, or "on"`);
  }
  let usedPercent: Setting<number> = { value: target.usedPercent, setBy: 'growth.usedPercent on the target' };
  const percentText = text(growthAnnotations.usedPercent);
  if (percentText) {
    const value = Number(percentText.value.replace(/%$/, ''));
    if (!(value > 0 && value <= 100) || percentText.value.trim() === '') problems.push(`${label(percentText.annotation)} is ${JSON.stringify(percentText.value)}, not a percentage above 0 and at most 100 (such as "90")`);
    else usedPercent = { value, setBy: label(percentText.annotation) };
  }
  let fullWithinSeconds: Setting<number> | undefined = target.fullWithinSeconds === undefined ? undefined : { value: target.fullWithinSeconds, setBy: 'growth.fullWithin on the target' };
  const withinText = text(growthAnnotations.fullWithin);
  if (withinText) {
    const seconds = parseDuration(withinText.value);
    if (!seconds) problems.push(`${label(withinText.annotation)} is ${JSON.stringify(withinText.value)}, not a duration such as "7d" or "36h"`);
    else fullWithinSeconds = { value: seconds, setBy: label(withinText.annotation) };
  }
  let step: Setting<GrowthStep> = { value: target.step, setBy: 'growth.step on the target' };
  const stepText = text(growthAnnotations.step);
  if (stepText) {
    const read = readGrowthStep(stepText.value, label(stepText.annotation));
    if (typeof read === 'string') problems.push(read);
    else step = { value: read, setBy: label(stepText.annotation) };
  }
  let max: Setting<string> = { value: target.max, setBy: 'growth.max on the target' };
  const maxText = text(growthAnnotations.max);
  if (maxText) {
    const read = readGrowthMax(maxText.value, label(maxText.annotation));
    if (typeof read === 'string') problems.push(read);
    else max = { value: read.text, setBy: label(maxText.annotation) };
  }
  if (problems.length > 0) return { kind: 'invalid', problems };
  if (switchValue?.value === 'off') return { kind: 'off', setBy: label(switchValue.annotation) };
  return { kind: 'on', usedPercent, fullWithinSeconds, step, max };
}

/** The growth annotation a name is a misspelling of: the part after the prefix an edit or so away (a quarter of it). */
function misspeltAnnotation(name: string, known: readonly string[]): string | undefined {
  const prefix = 'sts-volume-gitops.io/';
  const suffix = name.slice(prefix.length);
  const meant = closestName(suffix, known.map((k) => k.slice(prefix.length)), Math.max(1, Math.floor(suffix.length / 4)));
  return meant === undefined ? undefined : `${prefix}${meant}`;
}
