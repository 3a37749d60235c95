// AWS Signature Version 4 as an AWS endpoint checks it (an Amazon Managed Service for Prometheus workspace): the
// request is signed again with the known secret, over the headers the client says it signed, and the signatures must
// agree; refusals carry AWS's words and error types. The signing itself is AWS's own signer (@smithy/signature-v4).
import type { IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

export interface SigV4Expectation {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SigV4Refusal {
  type: string;
  message: string;
}

const authorizationPattern = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

function signedHeaderValues(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, String(headers[name] ?? '')]));
}

/** `20261128T080000Z` -> the Date the client signed at. */
function signingDate(amzDate: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))) : new Date(NaN);
}

/** undefined when the request is signed by the expected credentials for the expected region and service. */
export async function verifySigV4(request: ReceivedRequest, expected: SigV4Expectation): Promise<SigV4Refusal | undefined> {
  const early = verifySigV4Shape(request, expected);
  if (early !== undefined) return early;
  const header = request.headers.authorization ?? '';
  const [, , , , , signedHeaders = '', signature] = authorizationPattern.exec(header) ?? [];
  const amzDate = String(request.headers['x-amz-date']);
  const host = String(request.headers.host ?? '');
  const [hostname = '', port] = host.split(':');
  const signer = new SignatureV4({
    credentials: { accessKeyId: expected.accessKeyId, secretAccessKey: expected.secretAccessKey, ...(expected.sessionToken ? { sessionToken: expected.sessionToken } : {}) },
    region: expected.region, service: expected.service, sha256: Hash.bind(null, 'sha256'),
  });
  const names = signedHeaders.split(';');
  const signed = await signer.sign(new HttpRequest({
    method: request.method, protocol: 'http:', hostname, ...(port ? { port: Number(port) } : {}), path: request.path,
    query: Object.fromEntries(request.query), headers: signedHeaderValues(request.headers, names.filter((n) => n !== 'x-amz-date' && n !== 'x-amz-security-token')),
    body: request.body,
  }), { signingDate: signingDate(amzDate) });
  const again = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? ''))?.[1];
  return again === signature ? undefined : {
    type: 'InvalidSignatureException',
    message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  };
}

/** The checks made before signing again: a header, the key, its scope, the date, the session token. */
function verifySigV4Shape(request: ReceivedRequest, expected: SigV4Expectation): SigV4Refusal | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const match = authorizationPattern.exec(header);
  if (!match) return { type: 'IncompleteSignatureException', message: `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.` };
  const [, accessKeyId, , region, service] = match;
  if (accessKeyId !== expected.accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (region !== expected.region) return { type: 'InvalidSignatureException', message: 'Credential should be scoped to a valid region.' };
  if (service !== expected.service) return { type: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${expected.service}'.` };
  if (typeof request.headers['x-amz-date'] !== 'string') return { type: 'IncompleteSignatureException', message: 'Authorization header requires existence of either a \'X-Amz-Date\' or a \'Date\' header.' };
  if (expected.sessionToken !== undefined && request.headers['x-amz-security-token'] !== expected.sessionToken) {
    return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  return undefined;
}
