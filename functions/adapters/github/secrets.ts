// Secrets for the Lambda (the GitHub App key or token) through the AWS Parameters and Secrets Lambda Extension's
// local HTTP endpoint: no SDK client in the bundle, and the extension caches values between invocations.
export interface SecretReaderOptions {
  /** The extension's port (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, 2773 by default). */
  port?: number;
  /** AWS_SESSION_TOKEN of the function, which the extension requires as a header. */
  sessionToken?: string;
  host?: string;
}

export class SecretReadError extends Error {
  constructor(secretId: string, reason: string) {
    super(`cannot read secret ${secretId}: ${reason}`);
    this.name = 'SecretReadError';
  }
}

export async function readSecretString(secretId: string, options: SecretReaderOptions = {}): Promise<string> {
  const port = options.port ?? Number(process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? 2773);
  const token = options.sessionToken ?? process.env.AWS_SESSION_TOKEN;
  if (!token) throw new SecretReadError(secretId, 'AWS_SESSION_TOKEN is not set (not running in Lambda?)');
  const url = `http://${options.host ?? 'localhost'}:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { 'X-Aws-Parameters-Secrets-Token': token } });
  } catch (error) {
    throw new SecretReadError(secretId, `the Parameters and Secrets extension is not reachable on port ${port}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text();
  if (!response.ok) throw new SecretReadError(secretId, `the extension answered ${response.status}: ${text.slice(0, 200)}`);
  let body: { SecretString?: unknown };
  try {
    body = JSON.parse(text) as { SecretString?: unknown };
  } catch {
    throw new SecretReadError(secretId, `the extension answered with something other than JSON: ${text.slice(0, 200)}`);
  }
  if (typeof body.SecretString !== 'string') throw new SecretReadError(secretId, 'the secret has no SecretString (binary secrets are not supported)');
  return body.SecretString;
}
