// Duplicate keys in a JSON body. JSON.parse keeps the last of them silently; the API server's strict decoder
// reports each (`duplicate field "data"`): refused under fieldValidation=Strict, a warning under Warn. Bodies are
// scanned once when read; the finding travels with the parsed object.

const found = new WeakMap<object, string[]>();

/** Dotted paths of keys that occur twice in one object of `text` (well-formed JSON; JSON.parse checked it). */
export function scanDuplicateFields(text: string): string[] {
  let at = 0;
  const duplicates: string[] = [];
  const skipSpace = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at += 1;
  };
  const readString = (): string => {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const readValue = (path: string): void => {
    skipSpace();
    const char = text[at];
    if (char === '{') {
      at += 1;
      const keys = new Set<string>();
      skipSpace();
      while (text[at] !== '}' && at < text.length) {
        skipSpace();
        const key = readString();
        const keyPath = path === '' ? key : `${path}.${key}`;
        if (keys.has(key)) duplicates.push(keyPath);
        keys.add(key);
        skipSpace();
        at += 1; // ':'
        readValue(keyPath);
        skipSpace();
        if (text[at] === ',') at += 1;
        skipSpace();
      }
      at += 1;
    } else if (char === '[') {
      at += 1;
      let index = 0;
      skipSpace();
      while (text[at] !== ']' && at < text.length) {
        readValue(`${path}[${index}]`);
        index += 1;
        skipSpace();
        if (text[at] === ',') at += 1;
        skipSpace();
      }
      at += 1;
    } else if (char === '"') {
      readString();
    } else {
      while (at < text.length && !',}] \t\n\r'.includes(text[at] ?? '')) at += 1;
    }
  };
  readValue('');
  return duplicates;
}

export function recordDuplicateFields(body: unknown, text: string): void {
  if (typeof body !== 'object' || body === null) return;
  const duplicates = scanDuplicateFields(text);
  if (duplicates.length > 0) found.set(body, duplicates);
}

export function duplicateFieldsOf(body: object): string[] {
  return found.get(body) ?? [];
}
