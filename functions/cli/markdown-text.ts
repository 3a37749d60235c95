// GitHub-flavoured Markdown, as the tool writes it for comments, check runs and pull requests, turned into the text a
// reviewer reads on GitHub, for a terminal (the demo shows what GitHub shows): escapes and entities undone, emphasis,
// links and HTML comments (never shown) dropped, tables aligned, code blocks kept verbatim. Only the Markdown the
// renderers in functions/feedback/ and functions/proposals/recovery/ write is handled. Pure.

const entities: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#8203;': '', '&quot;': '"', '&#39;': '\'' };

/** The text of one line's inline Markdown: `**a**`, `` `b` ``, `[c](url)`, `\+`, `&gt;`, `<br>`, `<sub>`. */
function inlineText(markdown: string, lineBreak = '\n'): string {
  // Code spans are literal: set aside before anything else is read, put back at the end.
  const spans: string[] = [];
  let text = markdown.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_match, _fence: string, code: string) => {
    spans.push(code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1'));
    return `\uE000${spans.length - 1}\uE000`;
  });
  text = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<br\s*\/?>/gi, lineBreak)
    .replace(/<\/?(sub|sup|b|strong|em|i|details|summary)>/gi, '')
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/(^|[\s(])_(\S[^_]*?\S|\S)_(?=[\s).,;:]|$)/g, '$1$2')
    .replace(/\[([^\]]*)\]\([^)\s]*\)/g, '$1')
    // CommonMark's backslash escapes: any ASCII punctuation.
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/&(amp|lt|gt|quot|#39|#8203);|&#(\d+);/g, (entity, _name, code?: string) => (code === undefined ? entities[entity] ?? entity : String.fromCodePoint(Number(code))));
  return text.replace(/\uE000(\d+)\uE000/g, (_match, index: string) => spans[Number(index)] ?? '');
}

function isTableRow(line: string): boolean {
  return /^\s*\|.*\|\s*$/.test(line);
}

/** The cells of a table row; `\|` inside a cell is text, not a border. */
function cells(row: string): string[] {
  return row.trim().slice(1, -1).split(/(?<!\\)\|/).map((cell) => inlineText(cell.trim(), '; '));
}

/** Emoji a terminal draws two columns wide (those the renderers use: ✅ ❌ ⏳ and the pictographs above U+1F000). */
const wideSymbols = new Set([0x2705, 0x274c, 0x23f3, 0x231b]);

/** How many columns a terminal gives the text: a wide emoji, or a symbol with the emoji selector (U+FE0F), takes two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0xfe0f) width += 1; // the symbol before it turns into a two-column emoji
    else if (code === 0x200d || (code >= 0x300 && code < 0x370)) continue;
    else width += code >= 0x1f000 || wideSymbols.has(code) ? 2 : 1;
  }
  return width;
}

function table(rows: readonly string[]): string[] {
  const body = rows.filter((row) => !/^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/.test(row)).map(cells);
  const widths = body[0]?.map((_, column) => Math.max(...body.map((row) => displayWidth(row[column] ?? '')))) ?? [];
  const pad = (cell: string, width: number): string => `${cell}${' '.repeat(Math.max(0, width - displayWidth(cell)))}`;
  return body.map((row) => row.map((cell, column) => pad(cell, widths[column] ?? 0)).join('  ').trimEnd());
}

/** The whole text a reviewer reads for `markdown`. */
export function markdownToText(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const fence = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      // Verbatim until the closing fence, indented as a block.
      for (index++; index < lines.length && !(lines[index] ?? '').startsWith(fence); index++) out.push(`  ${lines[index] ?? ''}`);
      continue;
    }
    if (isTableRow(line)) {
      const rows: string[] = [];
      for (; index < lines.length && isTableRow(lines[index] ?? ''); index++) rows.push(lines[index] ?? '');
      index--;
      out.push(...table(rows));
      continue;
    }
    if (/^\s*<!--.*-->\s*$/.test(line)) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    out.push(heading !== undefined ? inlineText(heading) : inlineText(line).replace(/^(\s*)- /, '$1• '));
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
