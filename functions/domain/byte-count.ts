/**
 * A count of bytes as a person reads it: grouped digits and, from a KiB up, the binary unit.
 * Grouping also keeps a long run of digits from reading as a commit SHA on GitHub (it would be linked or broken up).
 */
export function byteCount(bytes: number): string {
  const grouped = `${bytes.toLocaleString('en-US')} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = bytes;
  let unit = '';
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  if (unit === '') return grouped;
  const rounded = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${rounded} ${unit} (${grouped})`;
}
