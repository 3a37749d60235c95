// Text from the cluster, Git or GitHub (names, paths, messages) goes into comments, check runs and pull requests only
// through here, so it reads as literal text in its place and can start nothing: no block (heading, list, quote, table
// row, code, a line of its own), no link, image, autolink or HTML, no emphasis, no mention, issue or commit reference.
// Proven against GitHub's renderer, cmark-gfm, by test/feedback/markdown-cmark.test.ts; GitHub's own references
// (mentions, #12, GH-12, owner/repo#12, SHAs, :emoji:) are found in the rendered text outside code and links, so a
// zero-width space breaks each where it would begin (domain/github-references.ts).
import { printable, printableLines } from '../domain/printable.ts';
import { referenceBreaks } from '../domain/github-references.ts';

/** U+200B as an entity: invisible on GitHub, and it keeps the raw Markdown ASCII. */
const zeroWidthSpace = '&#8203;';

/** Escaped wherever they stand: what makes inline Markdown (code, emphasis, links, images, tables, strikethrough, math). */
const backslashed = new Set([...'\\`*_[]()#+!|~$']);
const entities: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * How the text could begin a block where it stands at the start of a line (a list item's content, a line of its own):
 * digits then `.` would begin an ordered list (the dot is backslashed; `)` always is), and so would digits alone, with
 * the `.` the text is followed by (the first digit is written as an entity); `-`, `+`, `=` a list or a setext underline
 * (backslashed). Spaces at either end are written as entities: one that begins the text could indent it into a code
 * block, two that end it break the line, and emphasis around text that begins or ends with one does not close.
 */
function written(text: string, i: number, digits: number): string {
  const char = text[i] ?? '';
  const code = char.codePointAt(0) ?? 32;
  if ((i === 0 && digits === text.length && digits > 0) || ((i === 0 || i === text.length - 1) && /\p{Zs}/u.test(char))) return `&#${code};`;
  if (entities[char] !== undefined) return entities[char];
  return backslashed.has(char) || (i === 0 && /[-+=]/.test(char)) || (i === digits && digits > 0 && char === '.') ? `\\${char}` : char;
}

/**
 * Escapes text for a Markdown paragraph, list item, heading, table cell, emphasis or link text: one line, shown as
 * written, but that its line feeds are spaces (an API server's message of several lines reads on), and a lone `\r` or
 * any other control, separator or format character is shown escaped (`\r`, `\x1b`, `\u2028`).
 */
export function escapeMarkdown(text: string): string {
  const shown = printable(text.replace(/\r?\n/g, ' '));
  const breaks = referenceBreaks(shown);
  const digits = /^\d*/.exec(shown)?.[0].length ?? 0;
  let out = '';
  for (let i = 0; i < shown.length; i++) out += `${breaks.has(i) ? zeroWidthSpace : ''}${written(shown, i, digits)}`;
  return breaks.has(shown.length) ? `${out}${zeroWidthSpace}` : out;
}

/** A code span (`` `name` ``) that the text cannot close or break: shown as written, GitHub links nothing in it. */
export function codeSpan(text: string): string {
  const shown = printable(text);
  const fence = '`'.repeat(Math.max(0, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  // A space each side when the text begins or ends with a backtick, or with spaces at both ends (one of each is taken off).
  const pad = /^`|`$/.test(shown) || (/^ [^]* $/.test(shown) && /[^ ]/.test(shown)) ? ' ' : '';
  return shown === '' ? '` `' : `${fence}${pad}${shown}${pad}${fence}`;
}

/** A fenced code block that the text cannot close, for messages quoted verbatim (driver errors), line by line. */
export function codeBlock(text: string): string {
  const shown = printableLines(text.replace(/\r\n/g, '\n'));
  const longestRun = Math.max(2, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}text\n${shown}\n${fence}`;
}

/** Commit status descriptions: plain text, at most 140 characters (GitHub refuses longer ones), on one printable line. */
export function fitDescription(text: string, limit = 140): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1).trimEnd()}…`;
}
