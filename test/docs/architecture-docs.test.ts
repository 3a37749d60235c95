// ARCHITECTURE.md stays one page a newcomer reads in ten minutes, with the detail in the folders' own READMEs; and
// what those documents name stays true as files move: every path they write in backticks exists, every relative link
// (and its #section) resolves, and every folder of functions/ has a README (or, nested, is named in its parent's).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const architecture = path.join(root, 'ARCHITECTURE.md');

/** One page: what a newcomer reads in ten minutes. */
const onePage = { maxLines: 150, maxBytes: 12 * 1024, maxLineLength: 200, maxCellLength: 300 };

/** Extensions that make a backticked word a file's name. */
const fileExtensions = new Set(['ts', 'js', 'json', 'yaml', 'yml', 'md', 'txt']);
const pathShape = /^[A-Za-z0-9._@+-]+(?:\/[A-Za-z0-9._@+-]+)*\/?$/;
/** The project's shared folder (recordings, seeds) sits beside the clone, not in it: a clean clone cannot check it. */
const outsideTheRepository = '../shared/';
const skippedFolders = new Set(['node_modules', 'cdk.out']);
/**
 * Files a document names that are not the repository's, each with why: the reader's own files, and the recordings'
 * files in the shared folder. An entry that no longer matches a word of its document fails, so the list stays short.
 */
const notOurFiles: Record<string, Record<string, string>> = {
  'infra/README.md': {
    'config.yaml': "the operator's configuration file, where cdk runs",
    'out.json': 'the file `aws lambda invoke` writes the dispatcher\'s answer to, in the runbook above it',
  },
  'test/conformance/csi/README.md': {
    'commands.txt': 'a file of each recorded folder in ../shared/conformance/csi-v1.34.9/',
  },
};

function read(file: string): string {
  return readFileSync(file, 'utf8');
}

function relative(file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Every folder below `directory`, skipping dependencies, build output and dot-folders. */
function foldersUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !skippedFolders.has(entry.name))
    .flatMap((entry) => {
      const full = path.join(directory, entry.name);
      return [full, ...foldersUnder(full)];
    });
}

/** The folder READMEs: every README.md of the repository but its front page (the user's guide). */
function folderReadmes(): string[] {
  return foldersUnder(root).map((folder) => path.join(folder, 'README.md')).filter((file) => existsSync(file));
}

/** The document's lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: string; number: number }> {
  let fenced = false;
  return text.split('\n').flatMap((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, number: index + 1 }];
  });
}

function codeSpans(line: string): string[] {
  return [...line.matchAll(/(`+)([^`]+?)\1/g)].map((match) => match[2]!.trim());
}

/** A table row's cells (a `|` inside a code span, escaped as `\|`, does not split one). */
function tableCells(line: string): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function isDirectory(file: string): boolean {
  return existsSync(file) && statSync(file).isDirectory();
}

/** Where a document's relative names are looked for: its folder and each folder above it, and functions/. */
function basesOf(document: string): string[] {
  const bases: string[] = [];
  for (let folder = path.dirname(document); ; folder = path.dirname(folder)) {
    bases.push(folder);
    if (path.relative(root, folder) === '') break;
  }
  return [...bases, path.join(root, 'functions')];
}

/** A backticked word is a path when it names a file (an extension) or starts with a folder that exists. */
function isPathClaim(word: string, bases: readonly string[]): boolean {
  if (!pathShape.test(word) || word.startsWith(outsideTheRepository)) return false;
  const last = word.replace(/\/$/, '').split('/').at(-1)!;
  const extension = last.includes('.') ? last.split('.').at(-1)! : '';
  if (fileExtensions.has(extension)) return true;
  const first = word.split('/')[0]!;
  return word.includes('/') && first !== '.' && bases.some((base) => isDirectory(path.join(base, first)));
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.') && !skippedFolders.has(entry.name))
    .flatMap((entry) => {
      const full = path.join(directory, entry.name);
      return entry.isDirectory() ? filesUnder(full) : [full];
    });
}

/**
 * Whether a named path exists from one of the document's bases. A bare file name in a folder's README may also name a
 * file anywhere below that folder (`kubelet.ts` in sandbox/README.md's controllers list); ARCHITECTURE.md, at the
 * root, names every file with its folder.
 */
function exists(word: string, document: string): boolean {
  const bases = basesOf(document);
  const clean = word.replace(/\/$/, '');
  if (bases.some((base) => existsSync(path.join(base, clean)))) return true;
  const folder = path.dirname(document);
  if (clean.includes('/') || path.relative(root, folder) === '') return false;
  return filesUnder(folder).some((file) => path.basename(file) === clean);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  return heading.replace(/`/g, '').trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  return new Set(proseLines(read(file)).filter(({ line }) => /^#{1,6} /.test(line))
    .map(({ line }) => slugOf(line.replace(/^#+ /, ''))));
}

/** What a document says that does not hold: paths in backticks that do not exist, links that do not resolve. */
function falseReferences(document: string): string[] {
  const problems: string[] = [];
  const bases = basesOf(document);
  const others = notOurFiles[relative(document)] ?? {};
  const othersSeen = new Set<string>();
  for (const { line, number } of proseLines(read(document))) {
    const where = `${relative(document)}:${number}`;
    for (const word of codeSpans(line)) {
      if (word in others) othersSeen.add(word);
      else if (isPathClaim(word, bases) && !exists(word, document)) problems.push(`${where}: \`${word}\` does not exist`);
    }
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file === '' ? document : path.resolve(path.dirname(document), file);
      if (!existsSync(resolved)) {
        problems.push(`${where}: link to ${target}: ${file} does not exist`);
      } else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
        problems.push(`${where}: link to ${target}: ${relative(resolved)} has no section #${anchor}`);
      }
    }
  }
  for (const word of Object.keys(others)) {
    if (!othersSeen.has(word)) problems.push(`${relative(document)}: names \`${word}\` no more; drop it from notOurFiles`);
  }
  return problems;
}

describe('ARCHITECTURE.md is one page', () => {
  const text = read(architecture);
  const lines = text.split('\n');

  it(`has at most ${onePage.maxLines} lines and ${onePage.maxBytes} bytes`, () => {
    assert.ok(lines.length <= onePage.maxLines, `ARCHITECTURE.md has ${lines.length} lines: move detail into the folders' READMEs`);
    const bytes = Buffer.byteLength(text);
    assert.ok(bytes <= onePage.maxBytes, `ARCHITECTURE.md has ${bytes} bytes: move detail into the folders' READMEs`);
  });

  it(`has no line over ${onePage.maxLineLength} characters but table rows, and no table cell over ${onePage.maxCellLength}`, () => {
    const long = proseLines(text).flatMap(({ line, number }) => {
      if (!line.trimStart().startsWith('|')) {
        return line.length > onePage.maxLineLength ? [`line ${number}: ${line.length} characters`] : [];
      }
      return tableCells(line).filter((cell) => cell.length > onePage.maxCellLength)
        .map((cell) => `line ${number}: a cell of ${cell.length} characters (${cell.slice(0, 60)}...)`);
    });
    assert.deepEqual(long, [], 'ARCHITECTURE.md points; the detail belongs in the README of its folder');
  });
});

describe('every folder of functions/ has a README', () => {
  const functions = path.join(root, 'functions');

  it('each folder directly under functions/ has a README.md', () => {
    const missing = foldersUnder(functions).filter((folder) => path.dirname(folder) === functions)
      .filter((folder) => !existsSync(path.join(folder, 'README.md'))).map(relative);
    assert.deepEqual(missing, [], 'say what the folder holds, file by file, in its README.md');
  });

  it('each deeper folder has a README.md or is named in the README of a folder above it', () => {
    const unexplained = foldersUnder(functions).filter((folder) => path.dirname(folder) !== functions)
      .filter((folder) => !existsSync(path.join(folder, 'README.md')))
      .filter((folder) => {
        for (let above = path.dirname(folder); above !== functions; above = path.dirname(above)) {
          const readme = path.join(above, 'README.md');
          const name = path.relative(above, folder).split(path.sep).join('/');
          if (existsSync(readme) && codeSpans(read(readme)).some((word) => word === `${name}/` || word.startsWith(`${name}/`))) return false;
        }
        return true;
      }).map(relative);
    assert.deepEqual(unexplained, []);
  });
});

describe('the architecture documents name only what exists', () => {
  const documents = [architecture, ...folderReadmes()];
  for (const document of documents) {
    it(`${relative(document)}: every path in backticks exists and every relative link resolves`, () => {
      assert.deepEqual(falseReferences(document), []);
    });
  }

  it('notOurFiles speaks only of documents this test reads', () => {
    const read = new Set(documents.map(relative));
    assert.deepEqual(Object.keys(notOurFiles).filter((document) => !read.has(document)), []);
  });
});
