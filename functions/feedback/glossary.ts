// The words the tool uses, what each means, and its one spelling: the CLI, the pull request comments and checks, the
// recovery pull requests and `check` say a thing the same way. README's "Words" section is rendered from here
// (test/docs/glossary-docs.test.ts), and test/feedback/one-voice.test.ts holds the renderers to it. Pure.
import type { PvcReport, StatefulSetOutcome } from '../engine/report/pass-report.ts';
import { arrows, count, formatMoney, groupDigits, unitPrice } from '../domain/spelling.ts';

export interface GlossaryEntry {
  /** The word, as every text spells it. */
  word: string;
  means: string;
  /** Words not to use for it (tests look for them in what the renderers write). */
  insteadOf?: readonly string[];
}

export const glossary: readonly GlossaryEntry[] = [
  {
    word: 'resize',
    means: 'a change of a volumeClaimTemplate\'s `storage` request, carried to its StatefulSet\'s PVCs replica by replica; volumes only grow',
  },
  {
    word: 'grow',
    means: 'what a volume does in a resize, from the size it has (its capacity) to the new one: `3 PVCs grow 10Gi → 20Gi`',
  },
  {
    word: 'expansion',
    means: 'the storage driver\'s part of a resize (the controller, then the node\'s file system), as Kubernetes names it',
  },
  {
    word: 'class change',
    means: 'a change of a template\'s `volumeAttributesClassName` (KEP-3751: the volumes\' performance class), carried to its PVCs; the driver modifies each volume',
  },
  {
    word: 'template update',
    means: 'the live StatefulSet\'s volumeClaimTemplates set to Git\'s: in place, or by orphan delete and recreate (pods untouched); a recreation waiting for the old object to go is finished by the next pass',
  },
  {
    word: 'done',
    means: 'a replica whose volume has the size and class Git asks for; `2/3 done` counts them (the KEP\'s `readyReplicas`, a name kept only where that field is shown)',
    insteadOf: ['ready'],
  },
  { word: 'converged', means: 'every template of a StatefulSet done: nothing is left to do' },
  {
    word: 'will resize',
    means: 'what a read-only plan, and a pull request\'s check, says a change does once applied (also `will change class`, `will resize and change class`)',
  },
  {
    word: 'in progress',
    means: 'a change being applied: the template updated, PVCs patched, the driver or the node at work',
    insteadOf: ['in-progress'],
  },
  {
    word: 'waiting',
    means: 'in progress, waiting on something outside the tool: the garbage collector removing the old StatefulSet object, a pod to run at the current revision, another pass holding the target\'s Lease, the driver\'s window (until when is said)',
  },
  {
    word: 'driver\'s window',
    means: 'when a CSI driver\'s backend refuses another modification of a volume: after its N modifications within a rolling window, until the oldest leaves it, and while one is under way, until it completes (`drivers.<name>.modificationLimit`; `ebs.csi.aws.com`: 4 per 24h by default): a change to such a volume gets a warning before merge, waits once merged (never a failure, never a recovery pull request) and applies after it; growth is not proposed within it',
  },
  {
    word: 'busy',
    means: 'a pass that found the target\'s Lease held by another live pass: it says who, since and until when, writes nothing under it, and keeps each change\'s progress check saying it is waiting; exit code 0',
  },
  {
    word: 'blocked',
    means: 'a change in Git that cannot be applied as it is (a guardrail, the quota, a class that cannot expand, a size above the driver\'s maximum, a namespace not allowed, another controller, a refused dry run): nothing is written for that change (the other templates of its StatefulSet go on), exit code 1',
  },
  {
    word: 'failed',
    means: 'the storage driver refused a resize or a class change for good (infeasible); a recovery pull request proposes a way out; exit code 1',
  },
  { word: 'stalled', means: 'a volume has waited for its node to finish an expansion longer than `stalledAfter` (1h by default); exit code 1' },
  { word: 'missing', means: 'a StatefulSet in Git that the cluster does not have; this tool never creates one' },
  {
    word: 'driver\'s maximum',
    means: 'the largest volume a storage driver says it provides, read from its own words when it refused a size (`Requested capacity 107374182400 exceeds maximum allowed 53687091200`) and remembered for a week on the StatefulSet\'s status annotation: a change above it is blocked, and at it no size can succeed',
  },
  {
    word: 'no size can succeed',
    means: 'what is said of volumes at their driver\'s maximum asked for more: every size above their capacity is above the maximum, and a failed request can only be lowered above the capacity (KEP-1790)',
  },
  {
    word: 'recovery pull request',
    means: 'opened after a failure: a size (KEP-1790) or the class the volumes have (KEP-3751) that can succeed; when no size can succeed, Git back at the size the volumes have; for a person to merge',
  },
  {
    word: 'usage',
    means: 'how full a volume is, as its kubelet reports it through Prometheus: used bytes and inodes over the file system\'s size (not the claim\'s), and the last day\'s pace',
  },
  {
    word: 'growth',
    means: 'a larger template size proposed from usage: what the fullest replica needs, in whole Gi, within `growth.max` and the guardrails',
  },
  {
    word: 'write back',
    means: 'Git set to the live size of a template or PVC grown outside Git (by hand, by an autoscaler), since volumes never shrink: a write-back pull request proposes it, and the blocked "decrease" links it',
  },
];

/** How a StatefulSet's outcome (the `outcome` of `--json`) reads to people. */
export const outcomeWords: Readonly<Record<StatefulSetOutcome, string>> = {
  converged: 'converged',
  'in-progress': 'in progress',
  waiting: 'waiting',
  blocked: 'blocked',
  failed: 'failed',
  stalled: 'stalled',
  'missing-in-cluster': 'missing',
  'namespace-not-allowed': 'blocked (namespace not allowed)',
  'not-started': 'not started',
};

/** Where a PVC stands, in the same words in the CLI and on GitHub (the progress comment adds its icon). */
const pvcStateWords: Readonly<Record<PvcReport['state'], string>> = {
  'missing': 'not created yet',
  'waiting-for-pod': 'waiting for its pod',
  'to-patch': 'to be patched',
  'patched': 'patched, waiting for the resizer',
  'resizing-controller': 'resizing on the controller',
  'waiting-for-node': 'waiting for the node to expand the file system',
  'resizing-node': 'resizing on the node',
  'stalled-on-node': 'stalled',
  'retrying': 'retrying after a transient error',
  'waiting-for-window': "waiting for the driver's modification window",
  'in-progress-other-size': 'held back: another expansion in progress',
  'modifying': 'modifying the volume to its class',
  'class-pending': 'modification not started (class Pending)',
  'done': 'done',
  'failed': 'failed',
};

/**
 * A PVC's words in its set's report. A blocked change patches nothing (its template's, or the whole set's when its
 * template update was refused), so a PVC it would patch is not "to be patched" while it stays blocked.
 */
export function pvcWords(
  sts: { blockedBy?: string | undefined }, template: { action: string }, pvc: Pick<PvcReport, 'state'>,
): string {
  return pvc.state === 'to-patch' && isHeldByBlock(sts, template) ? 'not patched while blocked' : pvcStateWords[pvc.state];
}

/** The template's PVCs wait for nothing this tool will do: it is blocked, or its set's template update was. */
export function isHeldByBlock(sts: { blockedBy?: string | undefined }, template: { action: string }): boolean {
  return template.action === 'blocked' || sts.blockedBy !== undefined;
}

/** `2/3 done`: replicas whose volumes have the size and class Git asks for (the KEP's readyReplicas). */
export function doneCount(template: { readyReplicas: number; replicas: number }): string {
  return `${template.readyReplicas}/${template.replicas} done`;
}

/** The house style, each rule with its example made by the function that spells it. */
const houseStyle: ReadonlyArray<{ rule: string; example: string }> = [
  { rule: `a change reads \`${arrows.github}\` on GitHub (comments, checks, statuses, pull requests) and \`${arrows.terminal}\` in a terminal and in logs`, example: `10Gi ${arrows.github} 20Gi, 10Gi ${arrows.terminal} 20Gi` },
  { rule: 'a count names its noun in the right number, never with `(s)`', example: `${count(1, 'PVC')}, ${count(3, 'PVC')}, ${count(0, 'error')}` },
  { rule: 'money is signed, with two decimals and `a month`; a price is per GiB-month', example: `${formatMoney(3, 'USD')} a month, ${unitPrice(0.125, 'USD')}` },
  { rule: 'amounts the tool computes group thousands; a size quoted from Git is shown as written', example: `${formatMoney(25575, 'USD')}, ${groupDigits('204600Gi')} more, ${groupDigits('1024')}x` },
];

/** README's "Words" section: the glossary, then the house style. */
export function renderGlossary(): string {
  return [
    '| Word | Means | Not |',
    '| --- | --- | --- |',
    ...glossary.map((entry) => `| **${entry.word}** | ${entry.means} | ${(entry.insteadOf ?? []).map((w) => `"${w}"`).join(', ')} |`),
    '',
    ...houseStyle.map((style) => `- ${style.rule}: \`${style.example.split(', ').join('`, `')}\``),
  ].join('\n');
}
