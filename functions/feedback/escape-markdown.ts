// Text from the cluster or the manifests (names, error messages) goes into comments and statuses only through here,
// so it can never inject markup, HTML, @mentions, #references or links.
const zeroWidthSpace = '&#8203;';

/** Escapes text for a Markdown paragraph or table cell. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_{}[\]()#+!|~])/g, '\\$1')
    .replace(/@/g, `@${zeroWidthSpace}`)
    .replace(/:\/\//g, `:${zeroWidthSpace}//`)
    // GitHub links a bare `www.example.com` too (GFM extended autolinks).
    .replace(/www\./gi, (www) => `${www.slice(0, 3)}${zeroWidthSpace}.`)
    .replace(/\r?\n/g, ' ');
}

/** A fenced code block that the text cannot close, for messages quoted verbatim (driver errors). */
export function codeBlock(text: string): string {
  const longestRun = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}text\n${text.replace(/\r/g, '')}\n${fence}`;
}

/** Commit status descriptions: plain text, at most 140 characters (GitHub refuses longer ones). */
export function fitDescription(text: string, limit = 140): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1).trimEnd()}…`;
}
