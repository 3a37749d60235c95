// Markup, mentions, HTML and Markdown injection in every string that reaches a comment: names, namespaces, file paths,
// StorageClass and quota names, messages from the API server, driver messages, notes. Each hostile string goes through
// the real renderers (functions/feedback/) in each field, and the rendered comment must stay inert: no HTML but the
// renderer's own, no mention, no issue reference, no link or URL but the renderer's links into the repository, table
// rows with their column count, fences the text cannot close, and status descriptions of one line within 140 characters.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fields, plan, recoveryMarker, repoLink, statefulSet, type Rendered } from '../support/hostile-renders.ts';

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

/** Drops code spans too: GitHub links no mention or reference in code (test/feedback/markdown-cmark.test.ts holds them closed). */
function outsideCode(markdown: string): string {
  return outsideFences(markdown).split('\n').map((line) => line.replace(/(?<![\\`])(`+)(?!`)(.*?[^`])\1(?!`)/g, 'code')).join('\n');
}

function assertInert(rendered: Rendered): void {
  const text = outsideCode(rendered.markdown);
  const withoutOwnTags = text.replace(/<br>|<\/?sub>/g, '').replace(recoveryMarker, '');
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
