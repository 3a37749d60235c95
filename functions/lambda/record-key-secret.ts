// The recreation record key for the Lambda, from the Secrets Manager secret the config names (`recordKey.secret`): the
// stack creates it as `{"recordKey": "<generated>"}`; a bare string of at least 32 characters is accepted too.
import { SecretReadError } from '../adapters/github/secrets.ts';

export function recordKeyFromSecret(secretId: string, text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (error) {
    throw new SecretReadError(secretId, `the value starts like JSON but does not parse: ${(error as Error).message}`);
  }
  const key = (parsed as { recordKey?: unknown } | null)?.recordKey;
  if (typeof key !== 'string') throw new SecretReadError(secretId, 'the JSON has no "recordKey" string (see infra/README.md for the shape)');
  return key;
}
