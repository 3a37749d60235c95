// A local EKS for the tests, spoken to by the real clients over the wire: DescribeCluster over HTTP (the AWS SDK's
// EKSClient, pointed here by AWS_ENDPOINT_URL_EKS), an HTTPS API endpoint with a certificate authority of its own in
// front of the Kubernetes sandbox (client-node verifies it against DescribeCluster's certificateAuthority.data), and
// the sandbox's token authenticator checking each bearer token as EKS does (aws-iam-authenticator): a presigned STS
// GetCallerIdentity URL for this region, signing the header that names this cluster, with the known credentials,
// signed within the last 15 minutes. A token that fails any of these is refused (401), as on EKS.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { createHash, createHmac } from 'node:crypto';
import type { UserInfo } from '../../sandbox/kube/authorization.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';

// A self-signed certificate for IP 127.0.0.1, valid until 2126 (`openssl req -x509 -newkey ec -pkeyopt
// ec_paramgen_curve:prime256v1 -days 36500 -addext subjectAltName=IP:127.0.0.1`): it protects nothing but this test.
const endpointKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxGyhXMivEYAvS1Sb
BzHb/EMet3jiOGC6I3bp1hVL886hRANCAATruJ7hBdW96MMLJmj4Rew4zLxeuXch
HGBuIDROH53By55FOktGc7hQfWB32ri0+ay76/Qk8R70BAwCjP3fX/VO
-----END PRIVATE KEY-----
`;
const endpointCertificate = `-----BEGIN CERTIFICATE-----
MIIB2zCCAYKgAwIBAgIUK05l5dAMntBYT9QN1cYWGEt4V0swCgYIKoZIzj0EAwIw
OjE4MDYGA1UEAwwvZmFrZSBFS1MgQVBJIGVuZHBvaW50IChzdHMtdm9sdW1lLWdp
dG9wcyB0ZXN0cykwIBcNMjYxMTI1MjI0MTIzWhgPMjEyNjExMDEyMjQxMjNaMDox
ODA2BgNVBAMML2Zha2UgRUtTIEFQSSBlbmRwb2ludCAoc3RzLXZvbHVtZS1naXRv
cHMgdGVzdHMpMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE67ie4QXVvejDCyZo
+EXsOMy8Xrl3IRxgbiA0Th+dwcueRTpLRnO4UH1gd9q4tPmsu+v0JPEe9AQMAoz9
31/1TqNkMGIwHQYDVR0OBBYEFJF00hE2zy39eCcS/h9viNYb8V9GMB8GA1UdIwQY
MBaAFJF00hE2zy39eCcS/h9viNYb8V9GMA8GA1UdEwEB/wQFMAMBAf8wDwYDVR0R
BAgwBocEfwAAATAKBggqhkjOPQQDAgNHADBEAiBLWlTKqhfvfogPu3pFKvKoNfb2
M/+sWfOQRQe/RuLT0gIgJ/+v7HCgmQ00GZWIzUADA+DEBiSk//31mkWXQ2IGpLU=
-----END CERTIFICATE-----
`;

export interface FakeEksOptions {
  clusterName: string;
  region: string;
  /** The credentials the operator's machine holds: tokens must be signed with them. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Who a valid token authenticates as (what the access entry maps the principal to). */
  user: UserInfo;
  /** DescribeCluster's accessConfig.authenticationMode (API_AND_CONFIG_MAP unless set; `setAuthenticationMode` changes it). */
  authenticationMode?: string;
}

export interface FakeEks {
  /** For AWS_ENDPOINT_URL_EKS. */
  eksEndpoint: string;
  /** The cluster's API endpoint, as DescribeCluster answers it. */
  apiEndpoint: string;
  /** DescribeCluster requests, with the access key id that signed each. */
  describes: Array<{ cluster: string; accessKeyId: string | undefined }>;
  /** Bearer tokens the authenticator accepted, and refused. */
  tokens: { accepted: number; refused: number };
  /** What DescribeCluster answers from now on as the cluster's authentication mode. */
  setAuthenticationMode(mode: string): void;
  close(): Promise<void>;
}

export async function startFakeEks(kube: KubeSandbox, options: FakeEksOptions): Promise<FakeEks> {
  const kubePort = Number(new URL(kube.url).port);
  const front: TlsServer = createTlsServer({ key: endpointKey, cert: endpointCertificate }, (socket) => {
    const upstream = connect(kubePort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const close = (): void => { socket.destroy(); upstream.destroy(); };
    socket.on('error', close);
    upstream.on('error', close);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const apiEndpoint = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const describes: FakeEks['describes'] = [];
  let authenticationMode = options.authenticationMode ?? 'API_AND_CONFIG_MAP';
  const eks: Server = createServer((request, response) => {
    const match = /^\/clusters\/([^/?]+)$/.exec(request.url ?? '');
    describes.push({ cluster: decodeURIComponent(match?.[1] ?? ''), accessKeyId: signedBy(request) });
    if (request.method !== 'GET' || match?.[1] !== options.clusterName) {
      response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' })
        .end(JSON.stringify({ message: `No cluster found for name: ${decodeURIComponent(match?.[1] ?? '')}.` }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      cluster: {
        name: options.clusterName, status: 'ACTIVE', version: '1.34', endpoint: apiEndpoint,
        certificateAuthority: { data: Buffer.from(endpointCertificate).toString('base64') },
        accessConfig: { authenticationMode },
      },
    }));
  });
  await new Promise<void>((resolve) => eks.listen(0, '127.0.0.1', resolve));
  const tokens = { accepted: 0, refused: 0 };
  kube.addTokenAuthenticator((token) => {
    if (!token.startsWith('k8s-aws-v1.')) return undefined;
    const valid = verifyEksToken(token, options);
    tokens[valid ? 'accepted' : 'refused'] += 1;
    return valid ? options.user : undefined;
  });
  return {
    eksEndpoint: `http://127.0.0.1:${(eks.address() as AddressInfo).port}`, apiEndpoint, describes, tokens,
    setAuthenticationMode: (mode) => { authenticationMode = mode; },
    close: async () => {
      eks.closeAllConnections();
      await new Promise<void>((resolve) => eks.close(() => resolve()));
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
}

function signedBy(request: IncomingMessage): string | undefined {
  return /Credential=([^/]+)\//.exec(String(request.headers.authorization ?? ''))?.[1];
}

/** What STS and aws-iam-authenticator check of an EKS token, with the signature recomputed from the known secret. */
function verifyEksToken(token: string, options: FakeEksOptions): boolean {
  let url: URL;
  try {
    url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  const query = Object.fromEntries(url.searchParams);
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(query['X-Amz-Date'] ?? '');
  if (url.origin !== `https://sts.${options.region}.amazonaws.com` || query.Action !== 'GetCallerIdentity' || !date) return false;
  if (!(query['X-Amz-Credential'] ?? '').startsWith(`${options.credentials.accessKeyId}/`) || query['X-Amz-SignedHeaders'] !== 'host;x-k8s-aws-id') return false;
  const signedAt = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]), Number(date[4]), Number(date[5]), Number(date[6])));
  if (Math.abs(Date.now() - signedAt.getTime()) > 15 * 60_000) return false;
  return sigV4Signature(url, options) === query['X-Amz-Signature'];
}

/**
 * The AWS Signature Version 4 of a presigned GET (query-string auth), computed here from the secret as STS computes it:
 * canonical request (sorted query without the signature, the signed headers, the empty payload's hash), string to
 * sign, and the HMAC-SHA256 chain of date, region and service.
 */
function sigV4Signature(url: URL, options: FakeEksOptions): string {
  const encode = (text: string): string => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = [...url.searchParams].filter(([key]) => key !== 'X-Amz-Signature').map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&');
  const headers = `host:${url.hostname}\nx-k8s-aws-id:${options.clusterName}\n`;
  const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
  const canonical = ['GET', '/', query, headers, 'host;x-k8s-aws-id', sha256('')].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = `${amzDate.slice(0, 8)}/${options.region}/sts/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const hmac = (key: string | Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();
  const signingKey = ['sts', 'aws4_request'].reduce((key, part) => hmac(key, part), hmac(hmac(`AWS4${options.credentials.secretAccessKey}`, amzDate.slice(0, 8)), options.region));
  return createHmac('sha256', signingKey).update(toSign).digest('hex');
}
