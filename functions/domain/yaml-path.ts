// YAML paths of size sources: `server.persistentVolume.size`, `a.b[0].c`, and keys holding dots or brackets quoted:
// `a."b.c".d` (inside quotes `\"` and `\\` escape). Keys are strings, `[n]` indexes a sequence. Pure.

export type YamlPathSegment = string | number;

export class YamlPathError extends Error {
  constructor(readonly path: string, readonly position: number, reason: string) {
    super(`YAML path ${JSON.stringify(path)}: ${reason} at character ${position + 1}`);
    this.name = 'YamlPathError';
  }
}

/** Characters a bare key cannot hold: they separate segments. */
const separators = new Set(['.', '[', ']', '"']);

export function parseYamlPath(text: string): YamlPathSegment[] {
  const segments: YamlPathSegment[] = [];
  let i = 0;
  // A path starts with a key or an index; after that each segment is `.key` or `[n]`.
  let expectKey = !text.startsWith('[');
  while (i < text.length || expectKey) {
    if (expectKey) {
      if (text[i] === '"') {
        let key = '';
        i += 1;
        for (;;) {
          const char = text[i];
          if (char === undefined) throw new YamlPathError(text, i, 'unterminated quoted key');
          if (char === '"') break;
          if (char === '\\') {
            const next = text[i + 1];
            if (next !== '"' && next !== '\\') throw new YamlPathError(text, i, 'only \\" and \\\\ may be escaped in a quoted key');
            key += next;
            i += 2;
            continue;
          }
          key += char;
          i += 1;
        }
        i += 1;
        segments.push(key);
      } else {
        const start = i;
        while (i < text.length && !separators.has(text[i] ?? '')) i += 1;
        if (i === start) throw new YamlPathError(text, i, 'empty key (quote keys that contain dots: "a.b")');
        segments.push(text.slice(start, i));
      }
      expectKey = false;
      continue;
    }
    const char = text[i];
    if (char === '.') {
      i += 1;
      expectKey = true;
    } else if (char === '[') {
      const match = /^\[(0|[1-9]\d*)\]/.exec(text.slice(i));
      if (!match?.[1]) throw new YamlPathError(text, i, 'expected a sequence index like [0]');
      segments.push(Number(match[1]));
      i += match[0].length;
    } else {
      throw new YamlPathError(text, i, `unexpected ${JSON.stringify(char)} (expected "." or "[")`);
    }
  }
  if (segments.length === 0) throw new YamlPathError(text, 0, 'empty path');
  return segments;
}

/** The canonical text of a path: bare keys where they need no quotes. */
export function formatYamlPath(segments: readonly YamlPathSegment[]): string {
  return segments.map((segment, index) => {
    if (typeof segment === 'number') return `[${segment}]`;
    const bare = segment !== '' && ![...segment].some((c) => separators.has(c));
    const key = bare ? segment : `"${segment.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    return index === 0 ? key : `.${key}`;
  }).join('');
}
