// The change a proposal makes, as a table: the file, the line, the value and what it goes from and to. Every proposal
// changes one value where it lives (proposals/edits/), so a reviewer sees where before reading why. Pure.
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import type { ProposedEdit } from '../edits/editable-value.ts';
import type { BodySection } from './section.ts';

export function changeTableSection(edit: ProposedEdit): BodySection {
  return {
    lines: [
      'This pull request changes one value:',
      '',
      '| File | Line | Value | Now | Proposed |',
      '| --- | --- | --- | --- | --- |',
      `| ${escapeMarkdown(edit.path)} | ${edit.line} | ${edit.field} | ${escapeMarkdown(edit.from)} | ${escapeMarkdown(edit.to)} |`,
    ],
  };
}
