import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatYamlPath, parseYamlPath, YamlPathError } from '../../functions/domain/yaml-path.ts';

describe('parseYamlPath', () => {
  it('reads keys, sequence indexes and quoted keys holding dots', () => {
    assert.deepEqual(parseYamlPath('server.persistentVolume.size'), ['server', 'persistentVolume', 'size']);
    assert.deepEqual(parseYamlPath('a.b[0].c'), ['a', 'b', 0, 'c']);
    assert.deepEqual(parseYamlPath('a."b.c".d'), ['a', 'b.c', 'd']);
    assert.deepEqual(parseYamlPath('[1].value'), [1, 'value']);
    assert.deepEqual(parseYamlPath('m[2][10]'), ['m', 2, 10]);
    assert.deepEqual(parseYamlPath('"say \\"hi\\"".x'), ['say "hi"', 'x']);
    assert.deepEqual(parseYamlPath('app.kubernetes.io/name'), ['app', 'kubernetes', 'io/name']);
    assert.deepEqual(parseYamlPath('"app.kubernetes.io/name"'), ['app.kubernetes.io/name']);
    assert.deepEqual(parseYamlPath('""'), ['']);
  });

  it('refuses malformed paths with the position of the problem', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /empty key .* at character 1/],
      ['a..b', /empty key .* at character 3/],
      ['a.', /empty key .* at character 3/],
      ['a[01]', /expected a sequence index like \[0\] at character 2/],
      ['a[x]', /expected a sequence index/],
      ['a"b"', /unexpected "\\"" .* at character 2/],
      ['"open', /unterminated quoted key/],
      ['"a\\n"', /only \\" and \\\\ may be escaped/],
      ['a]', /unexpected "\]"/],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => parseYamlPath(text), (error: unknown) => error instanceof YamlPathError && message.test(error.message), text);
    }
  });

  it('formats a path back to text that parses to the same segments', () => {
    for (const text of ['a.b[0].c', 'a."b.c".d', '[3].value', '"x[1]".y', '"q\\"".r']) {
      const segments = parseYamlPath(text);
      assert.deepEqual(parseYamlPath(formatYamlPath(segments)), segments, text);
    }
    assert.equal(formatYamlPath(['a', 'b.c', 0]), 'a."b.c"[0]');
  });
});
