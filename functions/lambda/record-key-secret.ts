// The recreation record key for the Lambda, from the Secrets Manager secret the config names (`recordKey.secret`): the
// stack creates it as `{"recordKey": "<generated>"}`; a bare string of at least 32 characters is accepted too.
// JSON is read by the secret-safe reader: V8's parse error quotes the text around the fault, here the key itself.
import { parseSecretJson, SecretReadError } from '../adapters/github/secrets.ts';

export function recordKeyFromSecret(secretId: string, text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  const key = (parseSecretJson(secretId, trimmed) as { recordKey?: unknown } | null)?.recordKey;
  if (typeof key !== 'string') throw new SecretReadError(secretId, 'the JSON has no "recordKey" string (see infra/README.md for the shape)');
  return key;
}
