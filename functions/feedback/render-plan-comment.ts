// The plan comment on a pull request: what merging it would do to the volumes, and what blocks it, with links to the
// storage value in the PR's head. Pure.
import { templateKey } from '../proposals/lifecycle/identity.ts';
import { reasonLines } from './write-back-words.ts';
import type { LocatedError } from '../domain/desired-state.ts';
import { change, count, formatMoney, monthly, showSize } from '../domain/spelling.ts';
import { readsNothing } from '../engine/desired/no-manifests.ts';
import type { NoManifests } from '../engine/report/pass-report.ts';
import { costSummary, type StatefulSetReport, type TemplateReport } from '../engine/run-pass.ts';
import { changeLocation } from './change-location.ts';
import { willChange } from './change-words.ts';
import { codeSpan, escapeMarkdown, fitDescription } from './escape-markdown.ts';
import { catchUpWords, sizeChangeWords } from './size-change-words.ts';
import { printable } from '../domain/printable.ts';
import { replicaUsageWords, usageUnreadWords, type ChangeUsage } from '../usage/change-usage.ts';
import { windowReasons, windowUntil } from '../engine/plan/modification-window-words.ts';
import type { VolumeWindow } from '../engine/plan/modification-windows.ts';

export interface RepoLinks {
  htmlBase: string;
  owner: string;
  repo: string;
}

export interface PlanSummary {
  state: 'success' | 'failure';
  /** The headline fitted to a commit status (140 characters). */
  description: string;
  /** The whole headline: a check run's title (plain text, printable), which is not cut. */
  headline: string;
  markdown: string;
}

export const maxCommentLength = 65_536;

export function fileLink(links: RepoLinks, sha: string, path: string, line: number): string {
  return `${links.htmlBase}/${links.owner}/${links.repo}/blob/${sha}/${path.split('/').map(pathSegment).join('/')}#L${line}`;
}

/** A path segment percent-encoded but for RFC 3986's unreserved characters: `(`, `)`, `!`, `*`, `'` would end or mark up a Markdown link (encodeURIComponent leaves them). */
function pathSegment(segment: string): string {
  return [...Buffer.from(segment, 'utf8')].map((byte) => {
    const char = String.fromCharCode(byte);
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

function quotaCell(template: TemplateReport): string {
  if (template.quota.length === 0) return template.action === 'resize' ? 'no quota' : '—';
  return template.quota.map((q) => escapeMarkdown(`${q.quota}: ${showSize(q.used)} + ${showSize(q.growth)} of ${showSize(q.limit)}`)).join('<br>');
}

/**
 * `3 PVCs grow 10Gi → 20Gi`, `1 PVC grows ...` (from the volumes' size: size-change-words.ts), `3 PVCs class silver →
 * gold`, or both; a template that only catches up with its volumes, that.
 */
function planWords(template: TemplateReport): string {
  const catchUp = catchUpWords(template);
  if (catchUp !== undefined) return catchUp;
  const classChange = template.volumeAttributesClass;
  const grows = template.from === undefined || template.from !== template.desiredSize;
  const pvcs = count(template.pvcs.length, 'PVC');
  const size = `${pvcs} ${template.pvcs.length === 1 ? 'grows' : 'grow'} ${sizeChangeWords(template, 'github')}`;
  if (!classChange) return size;
  const klass = `class ${change(classChange.from ?? '(none)', classChange.to ?? '(none)', 'github')}`;
  return grows ? `${size}, ${klass}` : `${pvcs} ${klass}`;
}

/** The volumes' own growth, under the request's, when they do not grow from the live size (a lowered failed request). */
function volumesCell(template: TemplateReport): string {
  if (template.volumesFrom === undefined) return '';
  return template.catchesUp === true ? `<br>volumes already ${escapeMarkdown(template.volumesFrom)}` : `<br>volumes ${escapeMarkdown(template.volumesFrom)} → ${escapeMarkdown(template.desiredSize)}`;
}

/** The VolumeAttributesClass change (KEP-3751): `class silver → gold`. */
function classWords(template: TemplateReport): string | undefined {
  const change = template.volumeAttributesClass;
  return change ? `class ${escapeMarkdown(change.from ?? '(none)')} → ${escapeMarkdown(change.to ?? '(none)')}` : undefined;
}

/** The From → To cell: the sizes, the volumes' own growth and the class change under them; a class change alone, alone. */
function fromToCell(template: TemplateReport): string {
  const klass = classWords(template);
  if (template.change === 'class' && klass !== undefined) return klass;
  return `${escapeMarkdown(template.from ?? '—')} → ${escapeMarkdown(template.desiredSize)}${volumesCell(template)}${klass !== undefined ? `<br>${klass}` : ''}`;
}

function verdict(template: TemplateReport): string {
  if (template.action === 'blocked') return '❌ blocked';
  if (template.action === 'resize') return template.catchesUp === true ? '✅ will update the template' : `✅ ${willChange(template.change)}`;
  return template.finished ? '✔️ unchanged' : '⏳ in progress';
}

function changedTemplates(sets: readonly StatefulSetReport[]): Array<{ sts: StatefulSetReport; template: TemplateReport }> {
  return sets.flatMap((sts) => sts.templates.map((template) => ({ sts, template })));
}

/** The status and comment for one PR head. `touched` limits the report to StatefulSets in files the PR changes. */
export function renderPlanComment(input: {
  target: string; headSha: string; links: RepoLinks; statefulSets: readonly StatefulSetReport[]; errors: readonly LocatedError[];
  /** The API server's version, as `/version` said it. */
  server?: string;
  /** The head gives the target no manifest: once merged, passes read nothing (a failure unless size sources remain). */
  noManifests?: NoManifests;
  /** Why the head was not read at all (more than a pass reads: domain/source-limits.ts): a failure. */
  unread?: string;
  /** Template key -> its open write-back pull request, linked on the blocked "decrease" (write-back-words.ts). */
  writeBackLinks?: ReadonlyMap<string, string> | undefined;
  /** Each resized template's replicas now and at the new size, or why usage could not be read (never the verdict). */
  usage?: ChangeUsage;
}): PlanSummary {
  const { target, headSha, links, statefulSets, errors } = input;
  const nothingRead = readsNothing(input.noManifests);
  const rows = changedTemplates(statefulSets);
  const resizes = rows.filter((r) => r.template.action === 'resize');
  const blocked = rows.filter((r) => r.template.action === 'blocked');
  const missing = statefulSets.filter((s) => s.outcome === 'missing-in-cluster' || s.outcome === 'namespace-not-allowed');
  const cost = costSummary(statefulSets);

  let state: PlanSummary['state'] = 'success';
  let description: string;
  if (errors.length > 0) {
    state = 'failure';
    description = `${errors[0]?.path}:${errors[0]?.line}: ${errors[0]?.message}`;
  } else if (input.unread !== undefined) {
    state = 'failure';
    description = input.unread;
  } else if (nothingRead) {
    state = 'failure';
    description = nothingRead.message;
  } else if (blocked.length > 0) {
    state = 'failure';
    const first = blocked[0];
    description = `${first?.sts.namespace}/${first?.sts.name} ${first?.template.templateName}: ${first?.template.reasons[0] ?? 'blocked'}`;
  } else if (resizes.length > 0) {
    description = resizes.map(({ sts, template }) => `${sts.namespace}/${sts.name}: ${planWords(template)}${windowSuffix(template)}`).join('; ');
    if (cost) {
      const unpriced = cost.unpricedClasses.length > 0 ? ` (no price for ${cost.unpricedClasses.join(', ')})` : '';
      description += `; ${monthly(cost.monthlyIncrease, cost.currency)}${unpriced}`;
    }
  } else {
    description = 'no volume changes';
  }

  const lines: string[] = [];
  lines.push(`### sts-volume-gitops plan for ${codeSpan(target)} at ${headSha.slice(0, 7)}`);
  lines.push('');
  lines.push(state === 'success' ? `**${escapeMarkdown(description)}**` : '**This change cannot be applied as it is.**');
  lines.push('');
  if (rows.length > 0) {
    lines.push('| StatefulSet | Template | Replicas | From → To | StorageClass | Quota | Verdict |');
    lines.push('| --- | --- | --- | --- | --- | --- | --- |');
    for (const { sts, template } of rows) {
      const klass = template.storageClassName === undefined ? '—'
        : `${escapeMarkdown(template.storageClassName)} (${classState(template)})`;
      lines.push(`| ${escapeMarkdown(`${sts.namespace}/${sts.name}`)} | ${escapeMarkdown(template.templateName)} | ${sts.replicas ?? '—'} | `
        + `${fromToCell(template)} | ${klass} | ${quotaCell(template)} | ${verdict(template)} |`);
    }
    lines.push('');
  }
  if (cost) {
    const perSet = cost.statefulSets.map((c) => `${c.namespace}/${c.name} ${formatMoney(c.monthlyIncrease, c.currency)}`).join('; ');
    const unpriced = cost.unpricedClasses.length > 0 ? `; not counted: no price for StorageClass ${cost.unpricedClasses.join(', ')}` : '';
    lines.push(`**Storage cost:** ${escapeMarkdown(`${monthly(cost.monthlyIncrease, cost.currency)} (${perSet || 'nothing resizes'})${unpriced}`)}`, '');
  }
  lines.push(...usageLines(input.usage));
  for (const { sts, template } of resizes) {
    const windows = template.modificationWindows ?? [];
    if (windows.length === 0) continue;
    lines.push(`- ⚠️ **Warning:** ${escapeMarkdown(`${sts.namespace}/${sts.name}`)} ${codeSpan(template.templateName)}: ${escapeMarkdown(windowWarning(windows))}`);
  }
  for (const { sts, template } of blocked) {
    const where = changeLocation(template);
    lines.push(`- ❌ **${escapeMarkdown(`${sts.namespace}/${sts.name}`)}** ${codeSpan(template.templateName)} at [${escapeMarkdown(`${where.path}:${where.line}`)}](${fileLink(links, headSha, where.path, where.line)}):`);
    const writeBack = input.writeBackLinks?.get(templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName }));
    for (const reason of reasonLines(template, writeBack)) lines.push(`  - ${reason}`);
  }
  for (const sts of missing) lines.push(`- ⚠️ ${escapeMarkdown(`${sts.namespace}/${sts.name}`)}: ${escapeMarkdown(sts.notes[0] ?? sts.outcome)}`);
  if (input.unread !== undefined) lines.push(`- ❌ ${escapeMarkdown(input.unread)}`);
  if (nothingRead) lines.push(`- ❌ ${escapeMarkdown(nothingRead.message)}`);
  for (const error of errors) {
    lines.push(`- ❌ [${escapeMarkdown(`${error.path}:${error.line}`)}](${fileLink(links, headSha, error.path, error.line)}): ${escapeMarkdown(error.message)}`);
  }
  lines.push('');
  lines.push(`<sub>Checked against the live cluster${input.server ? ` (${escapeMarkdown(input.server)})` : ''} with server-side dry runs; nothing was changed. This comment is updated on every push.</sub>`);
  return { state, description: fitDescription(description), headline: printable(description), markdown: fitComment(lines) };
}

/** ` (waits for the driver's window until 2026-11-29T08:00:00Z)`: said in the status, since a status is all a token's check shows. */
function windowSuffix(template: TemplateReport): string {
  const windows = template.modificationWindows ?? [];
  return windows.length > 0 ? ` (waits for the driver's window ${windowUntil(windows)})` : '';
}

/** What merging now does to volumes modified within their driver's window: each waits, and the change applies after. */
export function windowWarning(windows: readonly VolumeWindow[]): string {
  if (windows.length === 0) return '';
  return `${windowReasons(windows)}: once merged, the change to ${windows.length === 1 ? 'it' : 'them'} waits for the driver's window `
    + `(${windowUntil(windows)}), then applies; nothing fails`;
}

/** The usage section: per resized template, each replica now and at the new size; or the one line saying it was not read. */
function usageLines(usage: ChangeUsage | undefined): string[] {
  if (!usage) return [];
  if (usage.outcome === 'unread') return [`- ⚠️ ${escapeMarkdown(usageUnreadWords(usage))}`, ''];
  const lines = ['**Volume usage** (the kubelet\'s, now → at the new size):'];
  for (const template of usage.templates) {
    lines.push(`- ${escapeMarkdown(`${template.namespace}/${template.statefulSet}`)} ${codeSpan(template.template)}:`);
    for (const replica of template.replicas) lines.push(`  - ${escapeMarkdown(replicaUsageWords(replica, template.to, '→'))}`);
    for (const claim of template.unread) lines.push(`  - ${escapeMarkdown(`${claim}: no usage series (a kubelet reports only the volumes of running pods)`)}`);
  }
  lines.push('');
  return lines;
}

/** Keeps a comment under GitHub's limit by dropping detail lines from the end and saying so. */
export function fitComment(lines: readonly string[]): string {
  const text = lines.join('\n');
  if (text.length <= maxCommentLength - 200) return text;
  const kept: string[] = [];
  let length = 0;
  for (const line of lines) {
    if (length + line.length + 1 > maxCommentLength - 300) break;
    kept.push(line);
    length += line.length + 1;
  }
  kept.push('', `_…${lines.length - kept.length + 1} more lines were left out to stay within GitHub's comment size limit; \`npx sts-volume-gitops plan\` prints them all._`);
  return kept.join('\n');
}

/** What the table says of a template's StorageClass: not there at all (the plan blocked it so), not expandable, or expandable. */
function classState(template: Pick<TemplateReport, 'storageClassExpandable' | 'reasonCodes'>): string {
  if (template.reasonCodes?.includes('storage-class-missing')) return 'not in the cluster';
  return template.storageClassExpandable === false ? 'not expandable' : 'expandable';
}
