// `npm ci` puts no `sts-volume-gitops` on PATH (the package is private and not installed globally): a command line
// written `sts-volume-gitops plan ...` is `command not found` for whoever copies it. Every command the docs show and the
// tool prints is written as what works, `npx sts-volume-gitops plan ...` (npx runs the package's own bin, on the Node
// 22 npm puts first on PATH). This holds the READMEs, the help, and every text the code and the seeds print.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderCommandHelp, renderOverview, renderSynopses } from '../../functions/cli/command-line.ts';
import { commandTable } from '../../functions/cli/command-table.ts';

const root = new URL('../../', import.meta.url);
const commands = Object.keys(commandTable).join('|');
/** `sts-volume-gitops plan` as a command, not already run by npx, not a name inside another (`sts-volume-gitops/validate`),
 *  and not the plan comment's title (`sts-volume-gitops plan for demo`). */
const bareCommand = new RegExp(`(?<!npx )(?<![\\w/.-])sts-volume-gitops (?:${commands})\\b(?! for\\b)`);

function trackedFiles(...patterns: string[]): string[] {
  return execFileSync('git', ['ls-files', '--', ...patterns], { cwd: root, encoding: 'utf8' }).split('\n').filter((path) => path !== '');
}

/** The lines of `text` with a bare command, as `path:line: text`. */
function bareLines(path: string, text: string, skip: (line: string) => boolean = () => false): string[] {
  return text.split('\n').flatMap((line, index) => (!skip(line) && bareCommand.test(line) ? [`${path}:${index + 1}: ${line.trim().slice(0, 160)}`] : []));
}

/** A source line that is a comment, which no user reads as a command to type. */
function isComment(line: string): boolean {
  return /^\s*(\/\/|\/\*|\*)/.test(line);
}

describe('command lines in the docs and in printed text', () => {
  it('every README writes commands as npx sts-volume-gitops ...', () => {
    const found = trackedFiles('*README.md').flatMap((path) => bareLines(path, readFileSync(new URL(path, root), 'utf8')));
    assert.deepEqual(found, []);
  });

  it('the help, the overview and README\'s command list do', () => {
    const printed = [renderOverview('0.0.0'), renderSynopses(), ...Object.values(commandTable).map((spec) => renderCommandHelp(spec))].join('\n');
    assert.deepEqual(bareLines('help', printed), []);
    assert.match(renderSynopses(), /^npx sts-volume-gitops plan \[--config FILE\]/m);
  });

  it('no text the code prints (check fixes, errors, the sandbox\'s lines, the RBAC header, alarm runbooks) or the seeds say has one', () => {
    const sources = trackedFiles('functions/*.ts', 'functions/*.js', 'infra/*.ts', 'infra/*.yaml', 'sandbox/*.ts', 'bin/*', 'schemas/*.json', 'examples/*');
    const found = sources.flatMap((path) => bareLines(path, readFileSync(new URL(path, root), 'utf8'), isComment));
    assert.deepEqual(found, []);
  });
});
