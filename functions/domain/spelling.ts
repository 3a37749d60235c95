// How the tool spells counts, amounts and changes in every text it writes, so the CLI, the pull request comments, the
// check runs, the recovery pull requests and `check` read as one voice (the house style feedback/glossary.ts states
// and README's "Words" renders). Pure.

/** Where a text is read: GitHub's pages (comments, checks, statuses, pull requests), or a terminal (CLI, logs, Events). */
export type Medium = 'github' | 'terminal';

/** The arrow of a change (`10Gi → 20Gi`): GitHub renders `→`; a terminal and a log line get plain `->`. */
export const arrows: Readonly<Record<Medium, string>> = { github: '→', terminal: '->' };

/** `10Gi → 20Gi` on GitHub, `10Gi -> 20Gi` in a terminal. */
export function change(from: string, to: string, medium: Medium): string {
  return `${from} ${arrows[medium]} ${to}`;
}

/** `1 PVC`, `2 PVCs`, `0 errors`, `1 class`, `3 classes`: a count with its noun in the right number, never `(s)`. */
export function count(n: number, noun: string, plural?: string): string {
  return `${groupDigits(String(n))} ${n === 1 ? noun : plural ?? pluralOf(noun)}`;
}

/** `PVCs`, `classes`, `StatefulSets`: English's regular plural (a noun that is not one passes its own). */
function pluralOf(noun: string): string {
  return /(s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

/**
 * Thousands grouped with commas in the whole-number part of every number in an amount: `204600Gi` reads `204,600Gi`,
 * `+25575.00 USD` reads `+25,575.00 USD`, as a factor reads `1,024x`. Digits after a decimal point are left as they are.
 */
export function groupDigits(text: string): string {
  return text.replace(/(?<![\d.,])\d{4,}/g, (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
}

/**
 * `+12.80 USD`, `+25,575.00 USD`, `+0.00 USD`: signed, always two decimals, the one way every text spells money (an
 * amount under half a cent reads `+0.00`, as it would on a bill; test/feedback/one-voice.test.ts holds every text to it).
 */
export function formatMoney(amount: number, currency: string): string {
  const cents = Math.round(Math.abs(amount) * 100);
  return `${amount < 0 && cents > 0 ? '-' : '+'}${groupDigits((cents / 100).toFixed(2))} ${currency}`;
}

/** `10x`, `2.5x`, `1,024x`: how many times larger, to two decimals at most, thousands grouped. */
export function factor(times: number): string {
  return `${groupDigits(String(Math.round(times * 100) / 100))}x`;
}

/** `+12.80 USD a month`: what a change adds to the bill, always said with `a month` (never `/month`). */
export function monthly(amount: number, currency: string): string {
  return `${formatMoney(amount, currency)} a month`;
}

/** `0.125 USD per GiB-month`: a configured price, as `prices.perGiBMonth` holds it. */
export function unitPrice(price: number, currency: string): string {
  return `${price} ${currency} per GiB-month`;
}

/** A size the tool computed (growth, headroom), grouped for reading: `204,600Gi`. A size from Git is quoted as written. */
export function showSize(quantity: string): string {
  return groupDigits(quantity);
}

/** `8.5Gi`: bytes in GiB with one decimal at most, for sentences about usage (the data keeps the bytes). */
export function gib(bytes: number | bigint): string {
  return `${Number((Number(bytes) / 2 ** 30).toFixed(1))}Gi`;
}

/** `85%`: a share (a volume's bytes or inodes used), in whole percent. */
export function percent(value: number): string {
  return `${Math.round(value)}%`;
}

/** `12 hours`, `1 day`, `3.5 days`: how long until something (a volume full at its pace), under a day in hours. */
export function daysSpelled(days: number): string {
  if (days < 1) return count(Math.round(days * 24), 'hour');
  const rounded = Number(days.toFixed(1));
  return rounded === 1 ? '1 day' : `${rounded} days`;
}
