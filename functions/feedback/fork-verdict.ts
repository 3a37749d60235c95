// What the author of a fork's pull request is told under `forks: validate` (pure): the one place that decides it, and
// from Git alone. A stranger reads everything the tool writes on the pull request, and any verdict the cluster decides
// tells something of it, the conclusion included: that a size is refused (below the volumes' capacity, past the growth
// limit measured from it, over the quota) or accepted, that a StatefulSet exists. Repeated, such verdicts bound a
// volume's capacity to the byte. So this function is never given the cluster: it sees the pull request's files, the
// branch's, and the target's configuration. It passes a pull request whose sizes and classes are the branch's, fails
// one with a problem Git shows (an unreadable manifest or size, a namespace the target may not resize, paths that match
// no manifest), at its line, and gives every other one, whatever the cluster would say, one fixed verdict that does
// not pass: a maintainer's pull request or `npx sts-volume-gitops plan` tells the rest (README, "Pull requests from forks").
import type { DesiredStatefulSet, LocatedError } from '../domain/desired-state.ts';
import type { NoManifests } from '../engine/report/pass-report.ts';
import type { TargetDesired } from '../engine/desired/desired-input.ts';
import { isNamespaceAllowed, namespaceNotAllowedReason, type NamespaceScope } from '../engine/plan/allowed-namespaces.ts';
import type { CheckAnnotation, CommitCheck } from '../engine/ports.ts';
import { count } from '../domain/spelling.ts';
import { escapeMarkdown, fitDescription } from './escape-markdown.ts';

/** The fixed verdict of a fork's change to sizes or classes: the same words, whatever the cluster would say. */
export const forkChangeTitle = 'changes volume sizes or classes: not checked on the cluster for a fork; a maintainer\'s pull request or `npx sts-volume-gitops plan` tells';
export const forkChangeSummary = 'This pull request comes from a fork and changes the size or class of a volume. Whether the cluster '
  + 'can apply it is not told to pull requests from forks: what a cluster accepts tells what it has. A maintainer can push '
  + 'this branch to the repository (its pull request is then checked against the cluster), or run `npx sts-volume-gitops plan` '
  + 'on it. This check does not pass until then.';

/** One reading of a target's files at a commit: what the fork view compares and judges. */
export interface ForkVerdictInput {
  context: string;
  /** The pull request's head, read as a pass reads it, with errors only in the files it changes. */
  head: TargetDesired;
  /** The target branch's head, whole: what the tool applies now. */
  base: TargetDesired;
  /** The files the pull request changes that the target reads. */
  touched: ReadonlySet<string>;
  scope: NamespaceScope;
  /** The head's paths match no manifest (engine/desired/no-manifests.ts). */
  noManifests?: NoManifests | undefined;
}

/** Sizes and classes of each StatefulSet and template the desired state names, by key: all the tool acts on. */
function volumeSettings(desired: TargetDesired, onlyIn?: ReadonlySet<string>): Map<string, string> {
  const settings = new Map<string, string>();
  const counts = (path: string): boolean => onlyIn === undefined || onlyIn.has(path);
  for (const set of desired.statefulSets.filter((s) => counts(s.location.path))) {
    // The template as written, its size as bytes: `20Gi` and `21474836480` are one size; anything else in the template
    // (the class included) is compared as written, as the plan does.
    const templates = [...set.templates].sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => ({ name: t.name, bytes: t.storage.bytes.toString(), rest: t.templateWithoutStorage }));
    settings.set(`set ${set.namespace}/${set.name}`, JSON.stringify(templates));
  }
  for (const value of desired.sizeValues.filter((v) => counts(v.location.path))) {
    settings.set(`size ${value.namespace}/${value.name} ${value.template}`, value.storage.bytes.toString());
  }
  for (const value of (desired.classValues ?? []).filter((v) => counts(v.location.path))) {
    settings.set(`class ${value.namespace}/${value.name} ${value.template}`, value.className);
  }
  return settings;
}

/** Whether the pull request asks for any size or class the branch does not already have. */
function changesVolumes(input: ForkVerdictInput): boolean {
  const base = volumeSettings(input.base);
  return [...volumeSettings(input.head, input.touched)].some(([key, setting]) => base.get(key) !== setting);
}

/** Problems Git alone shows: located errors, StatefulSets outside the target's namespaces, no manifest read at all. */
function gitProblems(input: ForkVerdictInput): LocatedError[] {
  const problems: LocatedError[] = [...input.head.errors];
  const named: Array<{ namespace: string; name: string; location: DesiredStatefulSet['location'] }> = [
    ...input.head.statefulSets, ...input.head.sizeValues, ...(input.head.classValues ?? []),
  ];
  for (const item of named.filter((n) => input.touched.has(n.location.path) && !isNamespaceAllowed(n.namespace, input.scope))) {
    problems.push({ ...item.location, message: `${item.namespace}/${item.name}: ${namespaceNotAllowedReason(item.namespace, input.scope)}` });
  }
  return problems;
}

/** A fork's verdict is never pending: it is decided at once, from Git. */
export type ForkCheck = CommitCheck & { state: 'success' | 'failure' | 'error' };

export function forkVerdict(input: ForkVerdictInput): ForkCheck {
  const { context } = input;
  const problems = gitProblems(input);
  if (problems.length > 0 || input.noManifests) {
    const lines = [
      ...(input.noManifests ? [input.noManifests.message] : []),
      ...problems.map((p) => `${p.path}:${p.line}: ${p.message}`),
    ];
    const title = `${count(lines.length, 'problem')} in Git: ${lines[0] ?? ''}`;
    const annotations: CheckAnnotation[] = problems.map((p) => ({ path: p.path, line: p.line, level: 'failure', title: 'not a valid size or manifest', message: p.message }));
    return {
      context, state: 'failure', description: fitDescription(title), title,
      summary: `This pull request comes from a fork; what Git shows is wrong:\n\n${lines.map((l) => `- ${escapeMarkdown(l)}`).join('\n')}`,
      annotations,
    };
  }
  if (!changesVolumes(input)) {
    const title = 'no volume changes: every size and class is the branch\'s';
    return { context, state: 'success', description: title, title, summary: `${title}.`, annotations: [] };
  }
  return { context, state: 'error', description: fitDescription(forkChangeTitle), title: forkChangeTitle, summary: forkChangeSummary, annotations: [] };
}
