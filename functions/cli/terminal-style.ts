// How the CLI's text fits where it goes. On a terminal: lines cut to their first clause and wrapped to its width (the
// details under --verbose, or --json), colour on the markers unless NO_COLOR is set. Piped or redirected: every line
// whole and plain, as scripts and logs read it. Pure, but for `terminalStyle`, which reads the stream and environment.
import { styleText } from 'node:util';

export interface TerminalStyle {
  colour: boolean;
  /** Columns to wrap at; undefined: no wrapping (not a terminal). */
  width: number | undefined;
  /** Cut long messages to their first clause (a terminal without --verbose). */
  short: boolean;
}

/** What the renderers use when nobody says otherwise (tests, JSON's neighbours): whole lines, no colour. */
export const plainStyle: TerminalStyle = { colour: false, width: undefined, short: false };

/**
 * The style for `stream`: a terminal gets short, wrapped lines, and colour unless NO_COLOR is set (any value,
 * no-color.org) or TERM is dumb; FORCE_COLOR (not 0) colours a pipe too. --verbose keeps every line whole.
 */
export function terminalStyle(stream: { isTTY?: boolean; columns?: number }, env: Readonly<Record<string, string | undefined>>, flags: { verbose?: boolean } = {}): TerminalStyle {
  const tty = stream.isTTY === true;
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const colour = (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb' && (tty || forced);
  const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : Number(env.COLUMNS) || 100;
  const width = tty ? Math.max(60, Math.min(columns, 160)) : undefined;
  return { colour, width, short: tty && flags.verbose !== true };
}

export type Tone = 'error' | 'warning' | 'ok' | 'info' | 'change';
const tones: Readonly<Record<Tone, Parameters<typeof styleText>[0]>> = { error: 'red', warning: 'yellow', ok: 'green', info: 'cyan', change: 'yellow' };

/**
 * The escape sequences paint() writes (styleText's foreground colours and their reset): the only ones terminal.ts lets
 * through. A capture group, so that splitting a text on it keeps them.
 */
export const colourCodes = new RegExp(`(${String.fromCharCode(0x1b)}\\[(?:3[1236]|39)m)`, 'u');

/** `text` in the tone's colour when the style has colour. */
export function paint(style: TerminalStyle, tone: Tone, text: string): string {
  return style.colour ? styleText(tones[tone], text, { validateStream: false }) : text;
}

const shortEnough = 40;

/**
 * A message cut to its first clause, before its first `; ` (the house style puts what is wrong first, then why and
 * what else), once at least `shortEnough` characters are kept, and to `most` characters at a word; `…` says more was.
 */
export function firstClause(text: string, most = Number.POSITIVE_INFINITY): string {
  const at = text.indexOf('; ', shortEnough);
  const clause = at > 0 ? text.slice(0, at) : text;
  if (clause.length <= most) return clause === text ? text : `${clause} …`;
  const space = clause.lastIndexOf(' ', most - 2);
  return `${clause.slice(0, space > shortEnough ? space : most - 2)} …`;
}

/**
 * One line as the style shows it: its message part (from `messageStart`) cut to its first clause when the style is
 * short and `cut` allows, then wrapped at the width, continuation lines indented under the message.
 */
export function fitLine(line: string, style: TerminalStyle, options: { messageStart?: number; cut?: boolean; lines?: 1 | 2 } = {}): string[] {
  const start = options.messageStart ?? line.length - line.trimStart().length;
  const head = line.slice(0, start);
  if (style.width === undefined || line.length <= style.width) return [line];
  // Short: at most about two lines' worth of message (one, when asked).
  const most = (options.lines ?? 2) === 1 ? style.width - start : 2 * style.width - start - 4;
  const message = style.short && options.cut !== false ? firstClause(line.slice(start), most) : line.slice(start);
  if (head.length + message.length <= style.width) return [`${head}${message}`];
  // Continuation lines sit deeper than the line's own start, so they never read as a line of their own.
  const indent = ' '.repeat(Math.min(options.messageStart ?? start + 4, Math.floor(style.width / 2)));
  const room = Math.max(20, style.width - indent.length);
  const lines: string[] = [];
  let current = head;
  let currentRoom = style.width;
  for (const word of message.split(' ')) {
    const sep = current.length > (lines.length === 0 ? head.length : indent.length) ? ' ' : '';
    if (current.length + sep.length + word.length > currentRoom && current.trim() !== '' && current.length > (lines.length === 0 ? head.length : indent.length)) {
      lines.push(current);
      current = `${indent}${word}`;
      currentRoom = indent.length + room;
    } else {
      current = `${current}${sep}${word}`;
    }
  }
  lines.push(current);
  return lines;
}
