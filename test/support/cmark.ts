// GitHub's Markdown renderer, cmark-gfm (Debian's package), with the extensions GitHub turns on and raw HTML let through
// as GitHub's renderer does (its sanitiser then keeps tags such as <sub>, <br>, <details>): so HTML that quoted text
// let in would show. cmarkAbsent says why the tests that need it skip where it is not installed (.ci/run installs it).
import { execFileSync, spawnSync } from 'node:child_process';

const options = ['--unsafe', '-e', 'table', '-e', 'strikethrough', '-e', 'autolink', '-e', 'tagfilter', '-e', 'tasklist'];

export const cmarkAbsent: string | false = spawnSync('cmark-gfm', ['--version']).status === 0 ? false
  : 'cmark-gfm is absent: `apt-get install cmark-gfm` runs these tests (.ci/run installs it)';

/** The HTML GitHub's renderer makes of `markdown`. */
export function renderGfm(markdown: string): string {
  return execFileSync('cmark-gfm', options, { input: markdown, encoding: 'utf8' });
}

/** HTML text as cmark-gfm escapes it. */
export function htmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * What would begin one of GitHub's own references in rendered text (docs.github.com, "Autolinked references and
 * URLs"; GitHub finds them in text outside code and links): a mention or team, an issue (`#12`, `GH-12`,
 * `owner/repo#12`), a commit SHA (7 or more hex digits), an emoji shortcode (but numbers: `:100:`), a URL or a bare
 * `www.` link.
 */
export const gitHubReference = /@[a-z0-9]|#\d|\bgh-\d|[0-9a-f]{7}|:[a-z0-9_+-]*[a-z_+-][a-z0-9_+-]*:|:\/\/|\bwww\./i;
