// Reading a CSI recording (/work/shared/conformance/csi-v1.34.9, see README.md there and beside this file): per folder,
// commands.txt (every command, its output, and `# <time> snapshot` notes, in order), one `<pvc>.watch.jsonl` per claim
// (every version a watch saw, with the bound PV as read then) and the snapshots (`<hhmmss>-<pvc>-<label>.json`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One version of a claim as the recorder's watch wrote it. */
export interface WatchLine {
  t: string;
  rv: string;
  annotations: Record<string, string> | null;
  deletionTimestamp: string | null;
  /** The bound PV as read after this version (its own resourceVersion says when it was written), or why it could not be. */
  pv: { capacity?: Record<string, string>; volumeAttributesClassName?: string | null; rv?: string; name?: string; error?: string } | null;
  spec: { requests?: Record<string, string>; volumeAttributesClassName: string | null; volumeMode?: string; volumeName: string | null };
  status: Record<string, unknown>;
}

export interface Command {
  /** The command line after `$ `. */
  line: string;
  /** What it printed, line by line. */
  output: string[];
  /** The latest `# <time>` note before it: the recording's clock, roughly. */
  notedAt: string | undefined;
}

export interface Snapshot {
  file: string;
  object: { metadata: { name: string; annotations?: Record<string, string>; deletionTimestamp?: string }; spec: Record<string, unknown>; status?: Record<string, unknown> };
}

export interface Scenario {
  /** The folder: a, b, c, d. */
  name: string;
  dir: string;
  commands: Command[];
  /** Watch lines per claim name, in order. */
  watches: Map<string, WatchLine[]>;
  snapshots: Snapshot[];
}

const noteTime = /^# (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:[+-]\d\d:\d\d|Z)? /;

export function parseCommands(text: string): Command[] {
  const commands: Command[] = [];
  let notedAt: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('$ ')) commands.push({ line: line.slice(2), output: [], notedAt });
    else if (line.startsWith('# ')) notedAt = noteTime.exec(line)?.[1] ?? notedAt;
    else commands.at(-1)?.output.push(line); // empty lines too: a jsonpath prints one for a missing value
  }
  for (const command of commands) while (command.output.at(-1) === '') command.output.pop();
  return commands;
}

export function loadScenario(root: string, name: string): Scenario {
  const dir = join(root, name);
  const files = readdirSync(dir).sort();
  const watches = new Map<string, WatchLine[]>();
  for (const file of files.filter((f) => f.endsWith('.watch.jsonl'))) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter((l) => l.trim() !== '');
    watches.set(file.replace(/\.watch\.jsonl$/, ''), lines.map((l, i) => {
      try {
        return JSON.parse(l) as WatchLine;
      } catch (error) {
        throw new Error(`${join(dir, file)}:${i + 1}: not a JSON line`, { cause: error });
      }
    }));
  }
  const snapshots = files.filter((f) => /^\d{6}-.+\.json$/.test(f)).map((file) => ({ file, object: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Snapshot['object'] }));
  return { name, dir, commands: parseCommands(readFileSync(join(dir, 'commands.txt'), 'utf8')), watches, snapshots };
}

export function recordingExists(root: string): boolean {
  return existsSync(join(root, 'README.md'));
}
