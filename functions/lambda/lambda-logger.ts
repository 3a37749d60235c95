// The Powertools logger every Lambda entry logs through, at module level so warm invocations reuse it. Its own file so
// that the entries that run no pass (dispatcher, webhook) do not bundle what passes need (client-node, EKS access).
// Powertools writes each line with JSON.stringify, which escapes C0 but leaves DEL, C1 (CSI U+009B), bidi overrides and
// line separators raw, and a reader's `jq -r` or `aws logs tail` turns its escapes back into the raw characters: every
// string is logged printable (domain/printable.ts), a name from Git or the cluster as a terminal shows it, and so is
// every key (a map keyed by names, such as a report's recovery links).
import { Logger } from '@aws-lambda-powertools/logger';
import { printable } from '../domain/printable.ts';

export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'sts-volume-gitops';
export const logger = new Logger({ serviceName, jsonReplacerFn: (_key, value: unknown) => printableLogValue(value) });

function printableLogValue(value: unknown): unknown {
  if (typeof value === 'string') return printable(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const entries = Object.entries(value);
  return entries.every(([key]) => printable(key) === key) ? value : Object.fromEntries(entries.map(([key, inner]) => [printable(key), inner]));
}
