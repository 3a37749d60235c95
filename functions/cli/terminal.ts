// Everything the CLI writes to a terminal goes through here (lint refuses process.stdout and process.stderr anywhere
// else in functions/): every control or format character but the line feeds of its own layout is written escaped, so a
// text from Git, the cluster or GitHub that a renderer quoted without printable() still cannot move the cursor, set the
// clipboard or reverse a line. The tool writes no colour or other escape sequence of its own. JSON is written with
// JSON's escapes only (printableJson), which this guard then finds nothing to change in.
import { printable, printableJson, printableLines } from '../domain/printable.ts';

export type Write = (text: string) => void;

export const writeOut: Write = (text) => {
  process.stdout.write(printableLines(text));
};

export const writeErr: Write = (text) => {
  process.stderr.write(printableLines(text));
};

/** `--json` output: indented, every string exact in JSON's escapes, one line feed after it. */
export function jsonText(value: unknown): string {
  return `${printableJson(value, 2)}\n`;
}

/** A progress line of a pass (`[demo] patched data-pg-0 ...`): target and line each one printable line. */
export function progressLine(target: string, line: string): string {
  return `[${printable(target)}] ${printable(line)}\n`;
}

/** A failure nobody foresaw, for stderr: its message on one printable line, then the stack's frames (the tool's own). */
export function failureText(error: unknown): string {
  if (!(error instanceof Error)) return `${printable(String(error))}\n`;
  // V8's stack starts with `name: message`, whose lines a message could make look like frames: they are cut off first.
  const head = error.message === '' ? error.name : `${error.name}: ${error.message}`;
  const stack = error.stack ?? '';
  const frames = (stack.startsWith(head) ? stack.slice(head.length) : stack).split('\n').filter((line) => /^ {4}at /.test(line));
  return `${[printable(head), ...frames].join('\n')}\n`;
}
