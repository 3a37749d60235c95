// How a query to Prometheus is authenticated: not at all, with a bearer token read from where the configuration says
// (a Secrets Manager secret through the secret-safe reader, an environment variable, a file), or signed with AWS
// Signature Version 4 by AWS's own signer (@smithy/signature-v4) for an Amazon Managed Service for Prometheus workspace
// (service `aps`), with the default credential chain (the function's role; from the command line, this machine's).
// A credential that cannot be had is an Error naming where it was looked for, never its value.
import { readFile } from 'node:fs/promises';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { awsSetupMessage } from '../adapters/aws/aws-setup-failure.ts';
import { stringFromSecret } from '../adapters/github/secrets.ts';
import type { PrometheusAuth, SecretReference } from '../domain/usage-config.ts';

/** A request about to be sent: the headers to add to it (Authorization, and for SigV4 its date and token). */
export type PrometheusAuthorizer = (request: { method: string; url: string; headers: Record<string, string>; body: string }) => Promise<Record<string, string>>;

/** Amazon Managed Service for Prometheus signs as `aps`. */
export const defaultSigV4Service = 'aps';

export interface AuthorizerOptions {
  env?: NodeJS.ProcessEnv;
  /** Reads a Secrets Manager secret's text (the Lambda's reader; check's with this machine's credentials). */
  readSecret?: (id: string) => Promise<string>;
  /** SigV4 credentials other than the default chain (tests). */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

export function prometheusAuthorizer(auth: PrometheusAuth | undefined, options: AuthorizerOptions = {}): PrometheusAuthorizer {
  if (auth === undefined) return () => Promise.resolve({});
  if ('bearer' in auth) {
    let token: Promise<string> | undefined;
    return async () => {
      // Read once per authorizer (a pass), then reused by its queries; a failure is tried again by the next pass.
      token ??= bearerToken(auth.bearer, options);
      return { authorization: `Bearer ${await token}` };
    };
  }
  const signer = new SignatureV4({
    credentials: options.credentials ?? defaultProvider(), region: auth.sigv4.region, service: auth.sigv4.service ?? defaultSigV4Service, sha256: Hash.bind(null, 'sha256'),
  });
  return async ({ method, url, headers, body }) => {
    const target = new URL(url);
    const host = target.host;
    let signed: HttpRequest;
    try {
      signed = await signer.sign(new HttpRequest({
        method, protocol: target.protocol, hostname: target.hostname, ...(target.port ? { port: Number(target.port) } : {}), path: target.pathname,
        query: Object.fromEntries(target.searchParams), headers: { ...headers, host }, body,
      })) as HttpRequest;
    } catch (error) {
      throw new Error(`cannot sign the query with SigV4: ${awsSetupMessage(error) ?? (error instanceof Error ? error.message : String(error))}`, { cause: error });
    }
    // What the signer added (Authorization, X-Amz-Date, X-Amz-Security-Token); fetch sets Host itself, to the same value.
    return Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'host' && !(name in headers)));
  };
}

/** Where a bearer token is, for messages: `environment variable PROM_TOKEN`. */
export function describeSecretReference(reference: SecretReference): string {
  if (reference.file !== undefined) return `file ${reference.file}`;
  if (reference.env !== undefined) return `environment variable ${reference.env}`;
  return `secret ${reference.secret ?? '?'}`;
}

/**
 * The token, trimmed (a file or secret often ends in a line break). One with any character a header cannot carry is
 * refused here, unshown: fetch's own refusal would quote the whole header.
 */
async function bearerToken(reference: SecretReference, options: AuthorizerOptions): Promise<string> {
  const where = describeSecretReference(reference);
  let text: string | undefined;
  if (reference.file !== undefined) {
    text = await readFile(reference.file, 'utf8').catch((error: unknown) => {
      throw new Error(`cannot read the bearer token (${where}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    });
  } else if (reference.env !== undefined) {
    text = (options.env ?? process.env)[reference.env];
  } else {
    if (!options.readSecret) throw new Error(`the bearer token is in ${where}, which only the Lambda function (and check) reads; use auth.bearer.env or auth.bearer.file here`);
    const id = reference.secret ?? '';
    text = bearerTokenFromSecret(id, await options.readSecret(id));
  }
  const token = text?.trim();
  if (!token) throw new Error(`the bearer token (${where}) is empty or not set`);
  if (!/^[\x21-\x7e]+$/.test(token)) throw new Error(`the bearer token (${where}) holds a space, line break or other character no token has (not shown)`);
  return token;
}

/**
 * A secret holding the token: the bare token, or `{"token": "..."}` read by the secret-safe JSON reader (V8's parse
 * error would quote the text around the fault, here the token).
 */
export function bearerTokenFromSecret(secretId: string, text: string): string {
  return stringFromSecret(secretId, text, 'token');
}
