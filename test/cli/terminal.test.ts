// The CLI's writer is the last guard (issue 34 item 2): whatever a renderer hands it, no control character reaches the
// terminal raw but the line feeds of the tool's own layout; a failure's message is one printable line above its frames.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureText, jsonText, progressLine, writeErr, writeOut } from '../../functions/cli/terminal.ts';

function captured(stream: NodeJS.WriteStream, act: () => void): string {
  const original = stream.write.bind(stream);
  let text = '';
  stream.write = (chunk: string | Uint8Array): boolean => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  try {
    act();
  } finally {
    stream.write = original;
  }
  return text;
}

describe('the terminal writer', () => {
  it('escapes what a renderer left raw on stdout and stderr, keeping line feeds', () => {
    const hostile = 'x db/pg blocked\x1b[1A\x1b[2K\r= db/pg converged\x9b31m\u202e\n  next line\x1b]52;c;aGk=\x07\n';
    const shown = 'x db/pg blocked\\x1b[1A\\x1b[2K\\r= db/pg converged\\x9b31m\\u202e\n  next line\\x1b]52;c;aGk=\\x07\n';
    assert.equal(captured(process.stdout, () => writeOut(hostile)), shown);
    assert.equal(captured(process.stderr, () => writeErr(hostile)), shown);
  });

  it('writes JSON exact, in JSON escapes the guard leaves alone', () => {
    const value = { name: 'pg\x1b[2K\u202e\x9b' };
    const text = captured(process.stdout, () => writeOut(jsonText(value)));
    assert.equal(text, '{\n  "name": "pg\\u001b[2K\\u202e\\u009b"\n}\n');
    assert.deepEqual(JSON.parse(text), value);
  });

  it('keeps a progress line and a failure\'s message each on one line', () => {
    assert.equal(progressLine('demo\n[other]', 'patched data-pg-0\r\x1b[2Kdone'), '[demo\\n[other]] patched data-pg-0\\r\\x1b[2Kdone\n');
    const error = new Error('GitHub said: branch "main\n    at forged (evil.js:1:1)\x1b[2K" not found');
    const lines = failureText(error).trimEnd().split('\n');
    assert.equal(lines[0], 'Error: GitHub said: branch "main\\n    at forged (evil.js:1:1)\\x1b[2K" not found');
    assert.ok(lines.slice(1).every((line) => line.startsWith('    at ') && !line.includes('forged')), lines.join('\n'));
  });
});
