// Text from Git, the cluster or GitHub, made safe to show: a character that acts on a terminal or on how text is laid
// out instead of being shown (C0 and C1 controls with ESC and CSI U+009B, DEL, line and paragraph separators, bidi
// overrides and isolates, zero-width and other format characters, lone surrogates) is written as an escape a person can
// read: `\x1b`, `\r`, `\u202e`. Backslashes are left alone, so printable text stays as it is (the terminal's writer
// applies it again to everything as a last guard). Pure.

/** Unicode's controls (Cc: C0, DEL, C1), format characters (Cf: bidi, zero-width, tags), line and paragraph separators, lone surrogates. */
const unprintable = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const unprintableButNewline = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
/** What JSON.stringify leaves raw: everything above but C0 (which it escapes) and lone surrogates (ES2019 escapes them). */
const rawInJson = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

const named: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

/** `\x1b`, `\r`, `\u202e`, `\u{e0041}`: how a character is shown escaped. */
function escaped(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return named[char] ?? (code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\u{${code.toString(16)}}`);
}

/** One line of text as a person may see it: every control, line break and format character escaped. */
export function printable(text: string): string {
  return text.replace(unprintable, escaped);
}

/** Text of several lines: as printable, but its line feeds kept (the layout of the tool's own output). */
export function printableLines(text: string): string {
  return text.replace(unprintableButNewline, escaped);
}

/**
 * JSON whose every string says what it holds exactly, in JSON's escapes only: JSON.stringify escapes C0 and lone
 * surrogates; DEL, C1, separators and format characters it leaves raw become `\u007f`, `\u009b`, `\u202e` (an escape
 * is valid wherever they can stand: inside a string, since JSON's own syntax is ASCII).
 */
export function printableJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(rawInJson, (char) => {
    let units = '';
    for (let i = 0; i < char.length; i++) units += `\\u${hex(char.charCodeAt(i), 4)}`;
    return units;
  });
}
