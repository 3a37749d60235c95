// What the demo shows of GitHub, as a reviewer sees it there (read back from the GitHub sandbox): a check run's
// conclusion, title, summary and the annotations on the lines of "Files changed", the check runs of one name commit by
// commit, and Markdown (comments, pull request bodies) as GitHub renders it, for a terminal.
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { CheckRun } from '../../sandbox/github/state.ts';
import { markdownToText } from './markdown-text.ts';

const marks: Readonly<Record<string, string>> = { success: '✔', failure: '✖', pending: '●' };

/** `text` indented by `spaces`, line by line. */
export function indent(text: string, spaces = 4): string {
  return text.split('\n').map((line) => (line === '' ? '' : `${' '.repeat(spaces)}${line}`)).join('\n');
}

/** Markdown as GitHub shows it, indented as a block. */
export function rendered(markdown: string): string {
  return indent(markdownToText(markdown));
}

function conclusionOf(run: CheckRun): string {
  return run.status === 'completed' ? run.conclusion ?? 'neutral' : 'pending';
}

/** The latest run of `name` on `sha` (a run whose annotations changed is replaced by a new one of the name). */
export function latestCheckRun(github: GitHubSandbox, name: string, sha: string): CheckRun | undefined {
  return github.state.checkRuns.filter((run) => run.name === name && run.headSha === sha).at(-1);
}

/** A check run as its page on GitHub shows it: conclusion and title, the summary, then each annotation on its line. */
export function checkRunView(run: CheckRun): string {
  const conclusion = conclusionOf(run);
  const lines = [`${marks[conclusion] ?? '·'} ${run.name} on ${run.headSha.slice(0, 7)} — ${conclusion}`, indent(run.output.title ?? '', 2), ''];
  if (run.output.summary) lines.push(rendered(run.output.summary), '');
  if (run.annotations.length > 0) {
    lines.push('  Annotations, on their lines in "Files changed":');
    for (const annotation of run.annotations) {
      lines.push(`    ${annotation.path}:${annotation.startLine}  ${annotation.level}  ${annotation.title ?? ''}`, indent(annotation.message, 6));
    }
  }
  return lines.join('\n').trimEnd();
}

/** One line per commit that has a run of `name`: its latest conclusion and title, oldest commit first. */
export function checkRunsByCommit(github: GitHubSandbox, name: string): string[] {
  const shas = [...new Set(github.state.checkRuns.filter((run) => run.name === name).map((run) => run.headSha))];
  return shas.flatMap((sha) => {
    const run = latestCheckRun(github, name, sha);
    return run ? [`  ${sha.slice(0, 7)} ${conclusionOf(run).padEnd(7)} ${run.output.title ?? ''}`] : [];
  });
}
