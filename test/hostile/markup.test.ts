// Markup, mentions, HTML and Markdown injection in every string that reaches a comment: names, namespaces, file paths,
// StorageClass and quota names, messages from the API server, driver messages, notes. Each hostile string goes through
// the real renderers (functions/feedback/) in each field, and the rendered comment must stay inert: no HTML but the
// renderer's own, no mention, no issue reference, no link or URL but the renderer's links into the repository, table
// rows with their column count, fences the text cannot close, and status descriptions of one line within 140 characters.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LocatedError } from '../../functions/domain/desired-state.ts';
import type { StatefulSetReport, TemplateReport } from '../../functions/engine/run-pass.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { renderProgressComment } from '../../functions/feedback/render-progress.ts';

const payloads = [
  '@acme/platform-team please approve',
  '<img src=x onerror=alert(1)>',
  '[click here](javascript:alert(1))',
  '](javascript:alert(1))',
  'use `rm -rf` ``` and ~~~ to close fences',
  'a | b | c',
  'fixes #1 and acme/gitops#2',
  '**bold** _em_ <details><summary>x</summary>',
  '<!-- sts-volume-gitops:plan:demo -->',
  'first line\n| forged | row |\n# heading',
  'see https://evil.example/x and www.evil.example',
  '&lt;already escaped&gt; &#64;',
] as const;

const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };
const repoLink = 'https://github.com/acme/gitops/blob/';

function template(overrides: Partial<TemplateReport> = {}): TemplateReport {
  return {
    templateName: 'data', desiredSize: '20Gi', commitSha: 'a'.repeat(40), replicas: 2, readyReplicas: 0, action: 'blocked', from: '10Gi',
    storageClassName: 'standard', storageClassExpandable: true, finished: false, justFinished: false, reasons: ['blocked for a reason'],
    pvcs: [{ name: 'data-pg-0', ordinal: 0, state: 'failed', request: '20Gi', capacity: '10Gi', message: 'resize failed', terminal: true, since: '2026-01-01T00:00:00Z' }],
    storageLocation: { path: 'k8s/pg.yaml', line: 29, column: 22 },
    quota: [{ quota: 'storage-quota', resource: 'requests.storage', used: '10Gi', growth: '10Gi', limit: '100Gi' }],
    failureEvents: [{ pvcName: 'data-pg-0', reason: 'VolumeResizeFailed', message: 'driver said no', lastTimestamp: '2026-01-01T00:00:00Z' } as TemplateReport['failureEvents'][number]],
    ...overrides,
  };
}

function statefulSet(overrides: Partial<StatefulSetReport> = {}, templateOverrides: Partial<TemplateReport> = {}): StatefulSetReport {
  return {
    namespace: 'db', name: 'pg', outcome: 'failed', podManagementPolicy: 'OrderedReady', replicas: 2, templateUpdate: undefined,
    templates: [template(templateOverrides)], notes: [], ...overrides,
  };
}

interface Rendered { markdown: string; description: string }

/** Each field a hostile string can reach, and the renderers that show it. */
const fields: Array<[field: string, render: (text: string) => Rendered[]]> = [
  ['StatefulSet name', (text) => both(statefulSet({ name: text }))],
  ['namespace', (text) => both(statefulSet({ namespace: text }))],
  ['template name', (text) => both(statefulSet({}, { templateName: text }))],
  ['StorageClass name', (text) => both(statefulSet({}, { storageClassName: text }))],
  ['quota name', (text) => both(statefulSet({}, { quota: [{ quota: text, resource: 'requests.storage', used: '1Gi', growth: '1Gi', limit: '2Gi' }] }))],
  ['file path of a blocked template', (text) => both(statefulSet({}, { storageLocation: { path: `k8s/${text}.yaml`, line: 3, column: 1 } }))],
  ['API server message (block reason)', (text) => both(statefulSet({}, { reasons: [`admission webhook "quota.acme" denied the request: ${text}`] }))],
  ['PVC message from the cluster', (text) => both(statefulSet({}, { pvcs: [{ ...template().pvcs[0]!, message: text }] }))],
  ['PVC name', (text) => both(statefulSet({}, { pvcs: [{ ...template().pvcs[0]!, name: text }] }))],
  ['driver message (failure event)', (text) => both(statefulSet({}, { failureEvents: [{ ...template().failureEvents[0]!, message: text }] }))],
  ['note on a StatefulSet missing in the cluster', (text) => both(statefulSet({ outcome: 'missing-in-cluster', notes: [text] }))],
  ['target name', (text) => [plan(statefulSet(), [], text), progress(statefulSet(), text)]],
  ['manifest error path and message', (text) => [plan(statefulSet(), [{ path: `k8s/${text}.yaml`, line: 7, column: 3, message: `YAML error: ${text}` }])]],
];

function plan(sts: StatefulSetReport, errors: LocatedError[] = [], target = 'demo'): Rendered {
  return renderPlanComment({ target, headSha: 'b'.repeat(40), links, statefulSets: [sts], errors });
}

function progress(sts: StatefulSetReport, target = 'demo'): Rendered {
  return renderProgressComment({
    target, sts, commitSha: 'c'.repeat(40),
    recoveryNotes: new Map([[`${sts.namespace}/${sts.name}/${sts.templates[0]?.templateName ?? ''}`, { 'size-recovery': 'data-pg-0 already reached 20Gi' }]]),
  });
}

function both(sts: StatefulSetReport): Rendered[] {
  return [plan(sts), progress(sts)];
}

/** Drops the renderer's fenced blocks (text inside them is shown verbatim), failing if one is not closed by its fence. */
function outsideFences(markdown: string): string {
  const lines = markdown.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})text$/.exec(lines[i] ?? '')?.[1];
    if (fence === undefined) {
      kept.push(lines[i] ?? '');
      continue;
    }
    const close = lines.findIndex((line, j) => j > i && line.startsWith('`') && line.replace(/`+$/, '') === '' && line.length >= fence.length);
    assert.ok(close > i, 'a fenced block is never closed');
    assert.equal(lines[close], fence, 'the quoted text closed the fence early');
    i = close;
  }
  return kept.join('\n');
}

function assertInert(rendered: Rendered): void {
  const text = outsideFences(rendered.markdown);
  const withoutOwnTags = text.replace(/<br>|<\/?sub>/g, '');
  assert.doesNotMatch(withoutOwnTags, /</, 'raw HTML');
  assert.doesNotMatch(text, /@(?!&#8203;)[\w-]/, 'a live @mention');
  assert.doesNotMatch(text, /(?<![\\&])#\d/, 'a live issue reference');
  for (const target of text.matchAll(/(?<!\\)\]\(([^)]*)/g)) assert.ok(target[1]?.startsWith(repoLink), `a link to ${target[1] ?? ''}`);
  for (const url of text.matchAll(/[a-z]+:\/\/\S*/g)) assert.ok(url[0].startsWith(repoLink), `a URL ${url[0]}`);
  assert.doesNotMatch(text, /(?<![\\/.])\bwww\.evil/, 'a bare www link');
  for (const line of text.split('\n').filter((l) => l.startsWith('|'))) {
    const cells = line.split(/(?<!\\)\|/).length - 2;
    assert.ok(cells === 7 || cells === 5, `a table row with ${cells} cells: ${line}`);
  }
  assert.ok(rendered.description.length <= 140, 'status description over 140 characters');
  assert.doesNotMatch(rendered.description, /\n/, 'a status description on several lines');
}

describe('hostile strings in comments stay inert', () => {
  for (const [field, render] of fields) {
    it(`in the ${field}`, () => {
      for (const payload of payloads) {
        for (const rendered of render(payload)) {
          try {
            assertInert(rendered);
          } catch (error) {
            throw new Error(`${field} = ${JSON.stringify(payload)}: ${(error as Error).message}\n${rendered.markdown}`, { cause: error });
          }
        }
      }
    });
  }

  it('keeps a forged marker from looking like one of the tool\'s comments', () => {
    const rendered = plan(statefulSet({ name: '<!-- sts-volume-gitops:plan:demo -->' }));
    assert.ok(!rendered.markdown.includes('<!--'));
  });

  it('detects an injection when one gets through (the checks can fail)', () => {
    assert.throws(() => assertInert({ markdown: '| a | b |\n@acme/team', description: '' }), /table row|mention/);
    assert.throws(() => assertInert({ markdown: '[x](javascript:alert(1))', description: '' }), /a link to javascript/);
    assert.throws(() => assertInert({ markdown: '<img src=x>', description: '' }), /raw HTML/);
    assert.throws(() => assertInert({ markdown: '```text\n````\n```', description: '' }), /closed the fence early/);
  });
});
