// The recreation record key for the Lambda, from the Secrets Manager secret the config names (`recordKey.secret`): the
// stack creates it as `{"recordKey": "<generated>"}`; a bare string of at least 32 characters is accepted too.
// JSON is read by the secret-safe reader: V8's parse error quotes the text around the fault, here the key itself.
import { stringFromSecret } from '../adapters/github/secrets.ts';

export function recordKeyFromSecret(secretId: string, text: string): string {
  return stringFromSecret(secretId, text, 'recordKey', 'see infra/README.md for the shape');
}
