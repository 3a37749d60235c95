// A GitHub delivery as a Lambda Function URL hands it to the function (payload format 2.0), signed or not.
import { sign } from '@octokit/webhooks-methods';
import type { LambdaFunctionURLEvent } from 'aws-lambda';

export async function gitHubDelivery(options: {
  event: string; payload: unknown; secret?: string; signature?: string; delivery?: string; base64?: boolean;
}): Promise<LambdaFunctionURLEvent> {
  const body = JSON.stringify(options.payload);
  const signature = options.signature ?? (options.secret !== undefined ? await sign(options.secret, body) : undefined);
  const headers: Record<string, string> = {
    'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/abc123', 'x-github-event': options.event,
    'x-github-delivery': options.delivery ?? crypto.randomUUID(), 'x-github-hook-id': '1',
    ...(signature !== undefined ? { 'x-hub-signature-256': signature } : {}),
  };
  return {
    version: '2.0', routeKey: '$default', rawPath: '/', rawQueryString: '', headers, isBase64Encoded: options.base64 ?? false,
    body: options.base64 ? Buffer.from(body).toString('base64') : body,
    requestContext: {
      accountId: 'anonymous', apiId: 'abcdefghij', domainName: 'abcdefghij.lambda-url.eu-west-1.on.aws', domainPrefix: 'abcdefghij',
      http: { method: 'POST', path: '/', protocol: 'HTTP/1.1', sourceIp: '140.82.115.1', userAgent: 'GitHub-Hookshot/abc123' },
      requestId: crypto.randomUUID(), routeKey: '$default', stage: '$default', time: '23/Nov/2026:16:00:00 +0000', timeEpoch: Date.now(),
    },
  };
}
