// Strings an attacker can put in a name, a path or a message: every kind of character that acts on a terminal, on how
// text is laid out or on Markdown, mixed with the letters, digits and words they are hidden among (fast-check).
import fc from 'fast-check';

const controls = [...Array(0x20).keys(), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)].map((code) => String.fromCharCode(code));
const layout = ['\u2028', '\u2029', '\u0085', '\u061c', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e',
  '\u2060', '\u2066', '\u2067', '\u2068', '\u2069', '\ufeff', '\u00ad', '\u{e0041}', '\ud800', '\udfff', '\u00a0', '\u3000'];
const punctuation = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];
/** Pieces of Markdown, GitHub references and terminal sequences, whole. */
const words = ['@octocat', '@acme/platform-team', '#12', 'GH-12', 'gh-7', 'acme/gitops#12', 'a5c3785ed8d6a35868bc169f07e40e889087fd2e', 'deadbeef',
  'jlord@a5c3785', 'acme/gitops@a5c3785', 'https://evil.example/x', 'www.evil.example', 'mailto:a@b.example', 'a@b.example', '<img src=x>', '<!--',
  '-->', '<details>', '**bold**', '_em_', '~~gone~~', '`code`', '```', '~~~', '| a | b |', '|---|', '# Heading', '1. item', '1) item', '- item', '* item',
  '+ item', '> quote', '    indented', '===', '---', '[x](javascript:alert(1))', '![i](x)', '[^1]', '\\', '&amp;', '&#64;', '&#8203;', ':x:',
  ':white_check_mark:', '$x$', '$$', '\x1b]52;c;aGk=\x07', '\x1b[1A\x1b[2K', '\x9b31m', '\r\n', '  ', '\t'];

const character = fc.oneof(
  fc.constantFrom(...controls), fc.constantFrom(...layout), fc.constantFrom(...punctuation),
  fc.constantFrom('a', 'z', 'A', 'G', 'H', 'f', '0', '1', '7', '9', ' ', 'é', '→', '✅', '😀'),
);

/** A hostile string: characters and whole pieces of markup, at most about 40 of them. */
export const hostileText: fc.Arbitrary<string> = fc.array(fc.oneof({ weight: 3, arbitrary: character }, { weight: 1, arbitrary: fc.constantFrom(...words) }), { maxLength: 40 })
  .map((parts) => parts.join(''));

/** What may never be written raw: Unicode's controls, format characters, line and paragraph separators, lone surrogates. */
export const unprintableCharacter = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
