// The diff kube-apiserver v1.34 appends to "spec is immutable after creation" for a PVC (apimachinery's diff.Diff):
// both internal core.PersistentVolumeClaimSpec values as json.MarshalIndent prints them (Go field names, one-space
// indent, nil as null), then go-difflib's unified diff with three lines of context and no file header.

type Json = Record<string, unknown>;

function sortedMap(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value ?? null;
  return Object.fromEntries(Object.entries(value as Json).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function reference(value: unknown, withNamespace: boolean): unknown {
  if (typeof value !== 'object' || value === null) return null;
  const ref = value as Json;
  return { APIGroup: ref.apiGroup ?? null, Kind: ref.kind ?? '', Name: ref.name ?? '', ...(withNamespace ? { Namespace: ref.namespace ?? null } : {}) };
}

function selector(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return null;
  const s = value as Json;
  return { ...(s.matchLabels ? { matchLabels: sortedMap(s.matchLabels) } : {}), ...(s.matchExpressions ? { matchExpressions: s.matchExpressions } : {}) };
}

/** The internal spec in Go's field order, as encoding/json marshals it. */
function goSpec(spec: Json | undefined): Json {
  const s = spec ?? {};
  const resources = (s.resources ?? {}) as Json;
  return {
    AccessModes: s.accessModes ?? null,
    Selector: selector(s.selector),
    Resources: { Limits: sortedMap(resources.limits), Requests: sortedMap(resources.requests) },
    VolumeName: s.volumeName ?? '',
    StorageClassName: s.storageClassName ?? null,
    VolumeMode: s.volumeMode ?? null,
    DataSource: reference(s.dataSource, false),
    DataSourceRef: reference(s.dataSourceRef, true),
    VolumeAttributesClassName: s.volumeAttributesClassName ?? null,
  };
}

type Tag = 'equal' | 'replace' | 'delete' | 'insert';
interface OpCode { tag: Tag; i1: number; i2: number; j1: number; j2: number }

/** Edit operations turning `a` into `b` from their longest common subsequence of lines. */
function opCodes(a: string[], b: string[]): OpCode[] {
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] = a[i] === b[j] ? (lcs[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const codes: OpCode[] = [];
  let i = 0;
  let j = 0;
  let startI = 0;
  let startJ = 0;
  const flush = (): void => {
    if (i === startI && j === startJ) return;
    const tag: Tag = i > startI && j > startJ ? 'replace' : i > startI ? 'delete' : 'insert';
    codes.push({ tag, i1: startI, i2: i, j1: startJ, j2: j });
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      const i1 = i;
      const j1 = j;
      while (i < a.length && j < b.length && a[i] === b[j]) { i++; j++; }
      codes.push({ tag: 'equal', i1, i2: i, j1, j2: j });
      startI = i;
      startJ = j;
    } else if (j >= b.length || (i < a.length && (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      i++;
    } else {
      j++;
    }
  }
  flush();
  return codes;
}

/** difflib's GetGroupedOpCodes: changes with `n` lines of context, far-apart changes in separate hunks. */
function groupedOpCodes(codes: OpCode[], n: number): OpCode[][] {
  const all = codes.length === 0 ? [{ tag: 'equal' as Tag, i1: 0, i2: 1, j1: 0, j2: 1 }] : codes.map((c) => ({ ...c }));
  const first = all[0] as OpCode;
  if (first.tag === 'equal') {
    first.i1 = Math.max(first.i1, first.i2 - n);
    first.j1 = Math.max(first.j1, first.j2 - n);
  }
  const last = all[all.length - 1] as OpCode;
  if (last.tag === 'equal') {
    last.i2 = Math.min(last.i2, last.i1 + n);
    last.j2 = Math.min(last.j2, last.j1 + n);
  }
  const groups: OpCode[][] = [];
  let group: OpCode[] = [];
  for (const code of all) {
    let { i1, j1 } = code;
    if (code.tag === 'equal' && code.i2 - i1 > 2 * n) {
      group.push({ ...code, i2: Math.min(code.i2, i1 + n), j2: Math.min(code.j2, j1 + n) });
      groups.push(group);
      group = [];
      i1 = Math.max(i1, code.i2 - n);
      j1 = Math.max(j1, code.j2 - n);
    }
    group.push({ ...code, i1, j1 });
  }
  if (group.length > 0 && !(group.length === 1 && group[0]?.tag === 'equal')) groups.push(group);
  return groups;
}

function unifiedRange(start: number, stop: number): string {
  const length = stop - start;
  if (length === 1) return String(start + 1);
  return `${length === 0 ? start : start + 1},${length}`;
}

/** go-difflib's unified diff of two texts split after each newline (the last line gets one), context 3, no header. */
export function unifiedDiff(before: string, after: string): string {
  const a = `${before}\n`.split(/(?<=\n)/);
  const b = `${after}\n`.split(/(?<=\n)/);
  let out = '';
  for (const group of groupedOpCodes(opCodes(a, b), 3)) {
    const head = group[0] as OpCode;
    const tail = group[group.length - 1] as OpCode;
    out += `@@ -${unifiedRange(head.i1, tail.i2)} +${unifiedRange(head.j1, tail.j2)} @@\n`;
    for (const code of group) {
      if (code.tag === 'equal') {
        for (const line of a.slice(code.i1, code.i2)) out += ` ${line}`;
        continue;
      }
      for (const line of a.slice(code.i1, code.i2)) out += `-${line}`;
      for (const line of b.slice(code.j1, code.j2)) out += `+${line}`;
    }
  }
  return out;
}

/** diff.Diff(old spec, new spec) as v1.34's refusal quotes it. */
export function pvcSpecJsonDiff(before: Json | undefined, after: Json | undefined): string {
  return unifiedDiff(JSON.stringify(goSpec(before), null, 1), JSON.stringify(goSpec(after), null, 1));
}
