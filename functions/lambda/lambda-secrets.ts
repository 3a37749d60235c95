// The Secrets Manager reader of a Lambda container, at module level so warm invocations reuse the cached values
// (the worker's GitHub App key, the webhook's secret).
import { SecretReader } from '../adapters/github/secrets.ts';

export const secrets = new SecretReader();
