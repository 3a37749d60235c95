// The GitHub App private key for the Lambda, from Secrets Manager through Powertools Parameters (cached across warm
// invocations; no extension layer to find per region). The secret the config names (`privateKey.secret`) holds
// `{"privateKey": "-----BEGIN RSA PRIVATE KEY-----\n..."}`; a bare PEM string is accepted too.
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';
import { awsSetupMessage } from '../aws/aws-setup-failure.ts';
import { minimumWebhookSecretLength, webhookSecretProblem } from '../../domain/webhook-secret.ts';

export class SecretReadError extends Error {
  /** `cause`: the SDK's error, kept for what it is (no credentials, no region), never for its text. */
  constructor(secretId: string, reason: string, options?: ErrorOptions) {
    super(`cannot read secret ${secretId}: ${reason}`, options);
    this.name = 'SecretReadError';
  }
}

export interface SecretReaderOptions {
  /** Seconds a value is reused before Secrets Manager is asked again; 5 minutes by default. */
  maxAgeSeconds?: number;
  /** Endpoint, region and credentials overrides (tests). */
  clientConfig?: SecretsManagerClientConfig;
}

/** The JSON shape of the secret the stack creates; documented in infra/README.md. */
export interface GitHubAppSecret {
  privateKey: string;
}

export function privateKeyFromSecret(secretId: string, text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    if (!trimmed.startsWith('-----BEGIN')) throw new SecretReadError(secretId, 'expected {"privateKey": "<PEM>"} or a PEM private key');
    return trimmed;
  }
  const privateKey = (parseSecretJson(secretId, trimmed) as Partial<GitHubAppSecret> | null)?.privateKey;
  if (typeof privateKey !== 'string' || !privateKey.includes('-----BEGIN')) {
    throw new SecretReadError(secretId, 'the JSON has no "privateKey" holding a PEM private key (see infra/README.md for the shape)');
  }
  return privateKey;
}

/** What Secrets Manager answers for a secret with no version yet, as the stack creates the App key's. */
const noValueYet = /can't find the specified secret value for staging label: AWSCURRENT/;

/**
 * Whether Secrets Manager said the secret itself does not exist (ResourceNotFoundException), not that it exists with
 * no value yet (the same exception, naming the staging label): before a deployment, the secrets the stack creates.
 */
export function secretDoesNotExist(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth++) {
    const { name, message, cause } = current as { name?: unknown; message?: unknown; cause?: unknown };
    if (name === 'ResourceNotFoundException') return typeof message !== 'string' || !noValueYet.test(message);
    current = cause;
  }
  return false;
}

export class SecretReader {
  private readonly provider: SecretsProvider;
  private readonly maxAge: number;

  constructor(options: SecretReaderOptions = {}) {
    this.provider = new SecretsProvider(options.clientConfig ? { clientConfig: options.clientConfig } : {});
    this.maxAge = options.maxAgeSeconds ?? 300;
  }

  async readString(secretId: string): Promise<string> {
    let value: unknown;
    try {
      value = await this.provider.get(secretId, { maxAge: this.maxAge });
    } catch (error) {
      throw new SecretReadError(secretId, readFailure(error), { cause: error });
    }
    if (typeof value !== 'string') throw new SecretReadError(secretId, 'the secret has no SecretString (binary secrets are not supported)');
    return value;
  }

  async readGitHubPrivateKey(secretId: string): Promise<string> {
    const text = await this.readString(secretId).catch((error: unknown) => {
      if (error instanceof SecretReadError && noValueYet.test(error.message)) {
        throw new SecretReadError(secretId, 'the secret has no value yet (the stack creates it empty): store {"privateKey": "<PEM>"} in it, see infra/README.md step 5');
      }
      throw error;
    });
    return privateKeyFromSecret(secretId, text);
  }
}

/** The webhook secret: a plain string, or `{"webhookSecret": "..."}` (the shape the stack creates). */
export function webhookSecretFromSecret(secretId: string, text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    const problem = webhookSecretProblem(trimmed);
    if (problem !== undefined) throw new SecretReadError(secretId, `the webhook secret ${problem}`);
    return trimmed;
  }
  const secret = (parseSecretJson(secretId, trimmed) as { webhookSecret?: unknown } | null)?.webhookSecret;
  if (typeof secret !== 'string' || webhookSecretProblem(secret) !== undefined) {
    throw new SecretReadError(secretId, `the JSON has no "webhookSecret" of at least ${minimumWebhookSecretLength} characters (see infra/README.md)`);
  }
  return secret;
}

/**
 * A secret holding one string: the bare text (trimmed), or `{"<field>": "..."}` read by `parseSecretJson`; a JSON
 * without that string field is refused, naming the secret and the field (`shape` says where the shape is documented).
 */
export function stringFromSecret(secretId: string, text: string, field: string, shape = ''): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  const value = (parseSecretJson(secretId, trimmed) as Record<string, unknown> | null)?.[field];
  if (typeof value !== 'string') throw new SecretReadError(secretId, `the JSON has no "${field}" string${shape ? ` (${shape})` : ''}`);
  return value;
}

/**
 * A secret value that starts like JSON. The error names the secret, never the value, nor the parser's message:
 * V8's quotes the text around the fault (`Unexpected token 'k', ..."kSecret": s3cr3t"...`).
 */
export function parseSecretJson(secretId: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SecretReadError(secretId, `the value starts like JSON but does not parse (${text.length} characters; the parser's message is not shown, it would quote the value)`);
  }
}

/**
 * Why Secrets Manager could not be read. A modelled service error (not found, access denied: `$fault` set) says so in
 * AWS's words; an answer the SDK could not deserialise is named only by its status, since the parser's message quotes
 * the answer, which may hold the secret; anything else (network, credentials) never saw the value.
 */
function readFailure(error: unknown): string {
  const setup = awsSetupMessage(error);
  if (setup !== undefined) return setup;
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (typeof cause !== 'object' || cause === null) return String(cause);
  const { $fault, $metadata, message, name } = cause as { $fault?: string; $metadata?: { httpStatusCode?: number }; message?: string; name?: string };
  if ($fault !== undefined) return message ?? name ?? 'a service error';
  if ($metadata !== undefined || cause instanceof SyntaxError) {
    return `the answer (HTTP ${$metadata?.httpStatusCode ?? '?'}) could not be read (${name ?? 'an error'}; its message is not shown, it may quote the secret)`;
  }
  return message ?? name ?? 'an unknown error';
}
