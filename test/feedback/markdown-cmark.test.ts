// The escaping every renderer in functions/feedback/ and functions/proposals/ quotes outside text with, proven against
// GitHub's renderer (issue 34 item 3): hostile strings (fast-check), in each place the renderers put them, rendered by
// cmark-gfm, come out as exactly that place holding the text as written (printable: a control character shown as
// `\x1b`, a line feed as a space), with nothing begun (no block, line break, link, autolink, HTML, emphasis, code,
// table cell), and none of GitHub's references beginning in it (mentions, issues, SHAs, emoji: GitHub finds those in
// the rendered text).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { printable, printableLines } from '../../functions/domain/printable.ts';
import { codeBlock, codeSpan, escapeMarkdown } from '../../functions/feedback/escape-markdown.ts';
import { fileLink } from '../../functions/feedback/render-plan-comment.ts';
import { cmarkAbsent, gitHubReference, htmlText, renderGfm } from '../support/cmark.ts';
import { hostileText, unprintableCharacter } from '../support/hostile-text.ts';
import { fields, repoLink } from '../support/hostile-renders.ts';

const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };
const sha = 'b'.repeat(40);

/** Each place a renderer quotes text, as Markdown, and the HTML it must render to (`shown`: the text as written). */
const places: Array<{ name: string; markdown: (text: string) => string; html: (shown: string, text: string) => string }> = [
  { name: 'a paragraph', markdown: (t) => `before ${escapeMarkdown(t)} after`, html: (s) => `<p>before ${s} after</p>` },
  { name: 'a line of its own', markdown: (t) => escapeMarkdown(t), html: (s, t) => (t === '' ? '' : `<p>${s}</p>`) },
  { name: 'bold', markdown: (t) => `**${escapeMarkdown(`x${t}`)}**`, html: (s) => `<p><strong>x${s}</strong></p>` },
  { name: 'a list item', markdown: (t) => `- ❌ ${escapeMarkdown(t)}`, html: (s, t) => `<ul>\n<li>❌${t === '' ? '' : ` ${s}`}</li>\n</ul>` },
  { name: 'a list item\'s start', markdown: (t) => `  - ${escapeMarkdown(t)}`, html: (s) => `<ul>\n<li>${s}</li>\n</ul>` },
  { name: 'a heading', markdown: (t) => `### Resize of ${escapeMarkdown(t)} (demo)`, html: (s) => `<h3>Resize of ${s} (demo)</h3>` },
  {
    name: 'a table cell', markdown: (t) => `| StatefulSet | Verdict |\n| --- | --- |\n| ${escapeMarkdown(t)} | ok |`,
    html: (s) => `<table>\n<thead>\n<tr>\n<th>StatefulSet</th>\n<th>Verdict</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>${s}</td>\n<td>ok</td>\n</tr>\n</tbody>\n</table>`,
  },
  {
    name: 'a link to a file', markdown: (t) => `- [${escapeMarkdown(`${t}:3`)}](${fileLink(links, sha, `k8s/${t}`, 3)})`,
    html: (s, t) => `<ul>\n<li><a href="${htmlText(fileLink(links, sha, `k8s/${t}`, 3))}">${s}:3</a></li>\n</ul>`,
  },
  { name: 'small print', markdown: (t) => `<sub>Checked against the live cluster (${escapeMarkdown(t)}).</sub>`, html: (s) => `<p><sub>Checked against the live cluster (${s}).</sub></p>` },
];

/** The HTML without the zero-width spaces that break GitHub's references (the quoted text's own are shown escaped). */
function withoutBreaks(html: string): string {
  return html.replace(/\u200b/g, '');
}

describe('quoted text rendered by GitHub\'s renderer (cmark-gfm)', { skip: cmarkAbsent }, () => {
  for (const place of places) {
    it(`stays literal text in ${place.name}, starting nothing`, () => {
      fc.assert(fc.property(hostileText, (text) => {
        const html = renderGfm(place.markdown(text)).trimEnd();
        assert.equal(withoutBreaks(html), place.html(htmlText(printable(text.replace(/\r?\n/g, ' '))), text));
        // The quoted text as GitHub's reference filters read it (with the breaks): nothing they would link.
        const quoted = html.replace(/<a href="[^"]*">/g, '<a>').replace(/<[^>]+>/g, ' ');
        assert.doesNotMatch(quoted.replace(/&amp;/g, '&'), gitHubReference);
      }), { numRuns: 150 });
    });
  }

  it('keeps a code span closed around any text, as written', () => {
    fc.assert(fc.property(hostileText.filter((t) => t !== ''), (text) => {
      const html = renderGfm(`#### ${codeSpan(text)} → 20Gi`).trimEnd();
      assert.equal(html, `<h4><code>${htmlText(printable(text))}</code> → 20Gi</h4>`);
    }), { numRuns: 300 });
  });

  it('keeps a fenced block closed around any text, line by line as written', () => {
    fc.assert(fc.property(fc.array(hostileText, { maxLength: 4 }), (lines) => {
      const text = lines.join('\n');
      const html = renderGfm(`The driver said:\n${codeBlock(text)}\nafter`).trimEnd();
      const body = htmlText(printableLines(text.replace(/\r\n/g, '\n')));
      assert.equal(html, `<p>The driver said:</p>\n<pre><code class="language-text">${body}\n</code></pre>\n<p>after</p>`);
    }), { numRuns: 300 });
  });

  it('the checks can fail: raw text would start a heading after a \\r, a mention and a link', () => {
    assert.match(renderGfm('plan for x\r# Plan approved by @platform-team'), /<h1>/);
    assert.notEqual(withoutBreaks(renderGfm(`before ${'[a](https://x)'} after`).trimEnd()), `<p>before ${htmlText('[a](https://x)')} after</p>`);
    assert.match('see @platform-team and GH-12', gitHubReference);
  });
});

/** The HTML's structure: its tags in order, a link's as where it points (into the repository or not). */
function skeleton(html: string): string[] {
  return [...html.matchAll(/<(\/?[a-z0-9]+)([^>]*)>/gi)].map(([, tag = '', attributes = '']) => (tag === 'a' ? `a ${attributes.includes(`href="${repoLink}`) ? 'repo' : attributes}` : tag));
}

/** GitHub's references in the text its filters read: outside links, code and fenced blocks. */
function references(html: string): string[] {
  const text = html.replace(/<a [^>]*>[^]*?<\/a>|<code[^>]*>[^]*?<\/code>|<pre>[^]*?<\/pre>/g, ' ').replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&');
  return [...text.matchAll(new RegExp(gitHubReference.source, 'gi'))].map((m) => m[0]);
}

describe('the tool\'s comments, checks and pull requests, rendered by GitHub\'s renderer (cmark-gfm)', { skip: cmarkAbsent }, () => {
  const cut = '\n\n<!-- cut -->\n\n';
  /** Every text, with the field benign and hostile, rendered at once (one cmark-gfm run). */
  function renderAll(text: string): Array<{ field: string; benign: string; hostile: string; description: string }> {
    const pairs = fields.flatMap(([field, render]) => render('x').map((benign, i) => ({ field, benign, hostile: render(text)[i] ?? benign })));
    const html = renderGfm(pairs.flatMap((p) => [p.benign.markdown, p.hostile.markdown]).join(cut)).split('<!-- cut -->');
    return pairs.map((p, i) => ({ field: p.field, benign: html[2 * i] ?? '', hostile: html[2 * i + 1] ?? '', description: p.hostile.description }));
  }

  it('a hostile value in any field adds no tag, link, reference or line to any of them', () => {
    fc.assert(fc.property(hostileText, (text) => {
      for (const { field, benign, hostile, description } of renderAll(text)) {
        assert.deepEqual(skeleton(hostile), skeleton(benign), `${field}: the structure changed\n${hostile}`);
        assert.deepEqual(references(hostile), references(benign), `${field}: a reference was added\n${hostile}`);
        assert.doesNotMatch(description, unprintableCharacter, `${field}: the status description`);
        assert.ok(description.length <= 140, `${field}: the status description is over 140 characters`);
      }
    }), { numRuns: 200 });
  });

  it('the issue\'s findings: a lone \\r makes no heading, a ) keeps the file link whole, GH-12 links nothing', () => {
    const approved = '\r# Plan approved by @platform-team: no volume changes, safe to merge';
    const [classField] = renderAll(approved).filter((r) => r.field === 'StorageClass name');
    assert.ok(classField);
    assert.deepEqual([...classField.hostile.matchAll(/<h(\d)>/g)].map((m) => m[1]), ['3'], 'the tool\'s own heading alone');
    assert.match(classField.hostile, /<td>\\r# Plan approved by @\u200bplatform-team: no volume changes, safe to merge \(expandable\)<\/td>/);
    const path = renderAll('a)b(c').find((r) => r.field === 'file path of a blocked template');
    assert.match(path?.hostile ?? '', /<a href="https:\/\/github\.com\/acme\/gitops\/blob\/b{40}\/k8s\/a%29b%28c\.yaml#L3">k8s\/a\)b\(c\.yaml:3<\/a>/);
    const reference = renderAll('see GH-12 and #12').find((r) => r.field === 'API server message (block reason)');
    assert.deepEqual(references(reference?.hostile ?? ''), references(reference?.benign ?? ''));
  });
});
