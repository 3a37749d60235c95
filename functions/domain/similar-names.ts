// "Did you mean": the name among those that exist closest to one that does not (pure). A mapping that names
// `vlogs-victoria-logs-server` where the chart renders `vlogs-victoria-logs-single-server` is told the right name.

/**
 * The candidate most like `name`, when one is like it: few edits apart (a third of the longer name at most, two
 * for short ones, or `maxEdits`), or the same words with one added or dropped (`-single`). undefined when none is close.
 */
export function closestName(name: string, candidates: Iterable<string>, maxEdits?: number): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    const allowed = maxEdits ?? Math.max(2, Math.floor(Math.max(name.length, candidate.length) / 3));
    const close = distance <= allowed || sameWordsButOne(name, candidate);
    if (close && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** `a-b-c` and `a-b-x-c`: one word list is the other with one word added. */
function sameWordsButOne(a: string, b: string): boolean {
  const [shorter, longer] = [a, b].map((n) => n.toLowerCase().split(/[-_.]/)).sort((x, y) => x.length - y.length) as [string[], string[]];
  if (longer.length !== shorter.length + 1 || shorter.length < 2) return false;
  return longer.some((_, skip) => longer.filter((__, i) => i !== skip).join('-') === shorter.join('-'));
}
