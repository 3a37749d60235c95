// Durations as a configuration writes them (`30m`, `1h`, `1h30m`, `2d`; schemas/config.schema.json holds the same form).
const pattern = /^(?=\d)(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Seconds of `1h30m`; undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const match = pattern.exec(text);
  if (!match) return undefined;
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return (((days ?? 0) * 24 + (hours ?? 0)) * 60 + (minutes ?? 0)) * 60 + (seconds ?? 0);
}

/** `1h30m` for 5400 seconds: the largest units first, none that is zero (`0s` for nothing). */
export function formatDuration(totalSeconds: number): string {
  const units: Array<[string, number]> = [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]];
  let left = Math.max(0, Math.floor(totalSeconds));
  const parts: string[] = [];
  for (const [unit, size] of units) {
    const count = Math.floor(left / size);
    left -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.join('') || '0s';
}
