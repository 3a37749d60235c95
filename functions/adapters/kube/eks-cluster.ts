// EKS access from Lambda: endpoint and CA from eks:DescribeCluster, and a bearer token that is a presigned STS
// GetCallerIdentity URL carrying the cluster name (what `aws eks get-token` and aws-iam-authenticator produce).
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { KubeConfig } from '@kubernetes/client-node';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export interface EksTokenOptions {
  clusterName: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  now?: () => Date;
}

/** EKS accepts a token for 15 minutes from its signing time; count a minute less for clock skew. */
const tokenLifetimeMs = 14 * 60 * 1000;

export async function eksToken(options: EksTokenOptions): Promise<string> {
  const hostname = `sts.${options.region}.amazonaws.com`;
  const signer = new SignatureV4({
    credentials: options.credentials, region: options.region, service: 'sts', sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    method: 'GET', protocol: 'https:', hostname, path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, 'x-k8s-aws-id': options.clusterName },
  });
  const signed = await signer.presign(request, { expiresIn: 60, signingDate: options.now?.() ?? new Date() });
  const query = Object.entries(signed.query ?? {})
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${encodeURIComponent(key)}=${encodeURIComponent(v ?? '')}`))
    .join('&');
  return `k8s-aws-v1.${Buffer.from(`https://${hostname}/?${query}`).toString('base64url')}`;
}

export interface EksKubeConfigOptions {
  clusterName: string;
  region: string;
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  eksClient?: EKSClient;
  now?: () => Date;
  /** How long the token must still be valid (the invocation's remaining time): a cached one that expires sooner is re-minted. */
  validForMs?: number;
}

const cache = new Map<string, { config: KubeConfig; expires: number }>();

export async function eksKubeConfig(options: EksKubeConfigOptions): Promise<KubeConfig> {
  const now = options.now ?? (() => new Date());
  const key = `${options.region}/${options.clusterName}`;
  const cached = cache.get(key);
  if (cached && cached.expires > now().getTime() + (options.validForMs ?? 0)) return cached.config;
  if ((options.validForMs ?? 0) > tokenLifetimeMs) {
    throw new Error(`an EKS token lives ${tokenLifetimeMs / 60_000} minutes, less than the ${Math.ceil((options.validForMs ?? 0) / 60_000)} asked for; keep the function timeout under 14 minutes`);
  }
  const credentials = options.credentials ?? defaultProvider();
  const client = options.eksClient ?? new EKSClient({ region: options.region, credentials });
  const { cluster } = await client.send(new DescribeClusterCommand({ name: options.clusterName }));
  if (!cluster?.endpoint || !cluster.certificateAuthority?.data) {
    throw new Error(`EKS cluster ${options.clusterName} in ${options.region} has no endpoint or certificate authority yet (status ${cluster?.status ?? 'unknown'})`);
  }
  const token = await eksToken({ clusterName: options.clusterName, region: options.region, credentials, now });
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: options.clusterName, server: cluster.endpoint, caData: cluster.certificateAuthority.data, skipTLSVerify: false }],
    users: [{ name: 'sts-volume-gitops', token }],
    contexts: [{ name: options.clusterName, cluster: options.clusterName, user: 'sts-volume-gitops' }],
    currentContext: options.clusterName,
  });
  cache.set(key, { config, expires: now().getTime() + tokenLifetimeMs });
  return config;
}
