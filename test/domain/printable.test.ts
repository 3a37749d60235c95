// printable(): what a person sees of a text from Git, the cluster or GitHub (terminal, log line), and printableJson():
// the same text exact, in JSON's escapes only (issue 34 item 2).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { printable, printableJson, printableLines } from '../../functions/domain/printable.ts';
import { hostileText, unprintableCharacter } from '../support/hostile-text.ts';

describe('printable text', () => {
  it('shows each control, separator, bidi and format character escaped', () => {
    assert.equal(printable('a\x1b]52;c;aGk=\x07\x1b[1A\x1b[2K\r= ok\x9b31m\u202eb\u2066\u2028\x85\x7f\t\n\x00'),
      'a\\x1b]52;c;aGk=\\x07\\x1b[1A\\x1b[2K\\r= ok\\x9b31m\\u202eb\\u2066\\u2028\\x85\\x7f\\t\\n\\x00');
    assert.equal(printable('\u200b\ufeff\u00ad\u{e0041}\ud800'), '\\u200b\\ufeff\\xad\\u{e0041}\\ud800');
  });

  it('leaves letters, punctuation, backslashes, spaces and emoji as they are', () => {
    const text = 'db/pg: 10Gi → 20Gi ✅ é 😀 C:\\x1b "quoted" \u00a0';
    assert.equal(printable(text), text);
  });

  it('never leaves an unprintable character, and changes nothing it made (the terminal applies it again)', () => {
    fc.assert(fc.property(hostileText, (text) => {
      const shown = printable(text);
      assert.doesNotMatch(shown, unprintableCharacter);
      assert.equal(printable(shown), shown);
      assert.equal(printableLines(shown), shown);
    }), { numRuns: 2000 });
  });

  it('keeps the line feeds of a text of several lines, and escapes the rest', () => {
    assert.equal(printableLines('one\r\ntwo\x1b[2K\nthree\u2028'), 'one\\r\ntwo\\x1b[2K\nthree\\u2028');
  });
});

describe('printable JSON', () => {
  it('holds every string exactly, with no raw control, separator or format character in its text', () => {
    fc.assert(fc.property(hostileText, hostileText, (key, value) => {
      const json = printableJson({ [key]: value, list: [value] }, 2);
      assert.doesNotMatch(json.replace(/\n/g, ''), unprintableCharacter);
      assert.deepEqual(JSON.parse(json), { [key]: value, list: [value] });
    }), { numRuns: 2000 });
  });

  it('writes what JSON.stringify leaves raw as \\u escapes, and escapes nothing twice', () => {
    assert.equal(printableJson('\x7f\x9b\u202e\u2028\u{e0041}\x1b\\'), '"\\u007f\\u009b\\u202e\\u2028\\udb40\\udc41\\u001b\\\\"');
  });
});
