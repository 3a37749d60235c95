// How a verdict under this tool's check name that it did not write is said (pure): in the plan comment, where the
// pull request's reviewers read it, and on one log line per verdict for the operator. Who wrote it and what it says
// are GitHub's text: escaped in Markdown, quoted as JSON on a log line.
import type { ForeignVerdict } from '../engine/ports.ts';
import { escapeMarkdown } from './escape-markdown.ts';

/** What a foreign verdict can do, and the fix: the same words in the comment and the log. */
export const foreignVerdictWhy = 'a required check is met by any status or check run of its name unless the branch requires it from this tool\'s '
  + 'GitHub App: require it with the App as its source (README, "Checks on pull requests")';

function what(verdict: ForeignVerdict): string {
  return verdict.kind === 'status' ? `a commit status set by ${verdict.by}` : `a check run of the App ${verdict.by}`;
}

/** The comment's section (empty when there is none), after the plan. */
export function foreignVerdictSection(verdicts: readonly ForeignVerdict[], context: string): string {
  if (verdicts.length === 0) return '';
  const items = verdicts.map((v) => `- ${escapeMarkdown(what(v))}: ${escapeMarkdown(v.state)}${v.description ? `, ${escapeMarkdown(JSON.stringify(v.description))}` : ''}`);
  return `\n\n**⚠️ Not this tool's verdict.** This head also carries \`${context}\` from someone else:\n\n${items.join('\n')}\n\n`
    + `${escapeMarkdown(foreignVerdictWhy)}.`;
}

/** One log line: `pull request #12 head 3f2a9c1: a commit status set by mallory under ... (success, "..."), not this tool's; ...`. */
export function foreignVerdictLine(verdict: ForeignVerdict, context: string, where: string): string {
  const said = `${verdict.state}${verdict.description ? `, ${JSON.stringify(verdict.description)}` : ''}`;
  return `${where}: ${what(verdict)} under ${context} (${said}), not this tool's; ${foreignVerdictWhy}`;
}
