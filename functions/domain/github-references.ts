// Where GitHub would link a reference in text it shows (docs.github.com, "Autolinked references and URLs": it finds
// them in rendered text outside code and links, in comments, pull request titles and commit messages): a mention or
// team after `@`, an issue after `#` or `GH-`, a URL's `://`, an :emoji: shortcode, a bare `www.` link, a commit SHA
// in 7 or more hex digits. A zero-width space where one would begin leaves the text as it reads. Pure.
import { printable } from './printable.ts';

// An emoji's name has a letter or `_+-` (`:100:` and `:1234:`, numbers, are left: a time's `20:49:54` is not broken).
// What the text ends with is broken too: the words written after it could end the reference (`:tada` then `: ...`).
const referenceStarts = /[@#](?=\S|$)|:(?=\/\/|[a-z0-9_+-]*[a-z_+-][a-z0-9_+-]*(?::|$))|(?<=gh-)|(?<=www)(?=\.|$)/gi;
const hexRun = /[0-9a-f]{7,}/gi;

/** The positions in `text` before which a zero-width space breaks every reference (after `@`, `#`, `GH-`, the `:` of `://` or of `:name:`; before `www`'s dot; every 6th hex digit of a run of 7 or more). */
export function referenceBreaks(text: string): Set<number> {
  const at = new Set<number>();
  for (const match of text.matchAll(referenceStarts)) at.add(match.index + match[0].length);
  for (const run of text.matchAll(hexRun)) for (let i = 6; i < run[0].length; i += 6) at.add(run.index + i);
  return at;
}

/**
 * A pull request's title or a line of a commit message: printable, its references broken by U+200B as itself (these
 * fields are not HTML). Apply once, to text not yet printable: printable() would show the breaks as `\u200b`.
 */
export function referenceFreeText(text: string): string {
  const shown = printable(text);
  const breaks = referenceBreaks(shown);
  let out = '';
  for (let i = 0; i <= shown.length; i++) out += `${breaks.has(i) ? '\u200b' : ''}${shown[i] ?? ''}`;
  return out;
}
