// EKS access for the deployed function and for the CLI's plan and check: endpoint and CA from eks:DescribeCluster, and a
// bearer token that is a presigned STS GetCallerIdentity URL carrying the cluster name (what `aws eks get-token` and
// aws-iam-authenticator produce).
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { KubeConfig } from '@kubernetes/client-node';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { EksCluster } from '../../domain/cluster-key.ts';

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
  /** A cluster in another account: this role is assumed (STS AssumeRole) and its credentials call EKS and sign the token. */
  assumeRole?: AssumeRoleOptions;
  /** The STS client for AssumeRole (tests point it at a local endpoint). */
  stsClient?: STSClient;
}

export interface AssumeRoleOptions {
  roleArn: string;
  externalId?: string;
  sessionName: string;
}

/** Temporary credentials of the role, from the function's own (the role's trust policy names the function's role). */
export async function assumedRoleCredentials(options: {
  assumeRole: AssumeRoleOptions; region: string; credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider; stsClient?: STSClient;
}): Promise<AwsCredentialIdentity> {
  const { roleArn, externalId, sessionName } = options.assumeRole;
  const client = options.stsClient ?? new STSClient({ region: options.region, credentials: options.credentials ?? defaultProvider() });
  let answer;
  try {
    // One hour: longer than any invocation, so the cached EKS token never outlives its signing credentials.
    answer = await client.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: sessionName, DurationSeconds: 3600, ...(externalId !== undefined ? { ExternalId: externalId } : {}) }));
  } catch (error) {
    throw new Error(`cannot assume ${roleArn}${externalId !== undefined ? ' (with its external ID)' : ''}: ${(error as Error).message}`, { cause: error });
  }
  const issued = answer.Credentials;
  if (!issued?.AccessKeyId || !issued.SecretAccessKey) throw new Error(`STS returned no credentials for ${roleArn}`);
  return {
    accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey,
    ...(issued.SessionToken ? { sessionToken: issued.SessionToken } : {}), ...(issued.Expiration ? { expiration: issued.Expiration } : {}),
  };
}

/** The credentials that call EKS and sign the token: the role's when one is assumed, else the given or the default chain's. */
async function eksCredentials(options: EksKubeConfigOptions): Promise<AwsCredentialIdentity | AwsCredentialIdentityProvider> {
  return options.assumeRole
    ? assumedRoleCredentials({ assumeRole: options.assumeRole, region: options.region, ...(options.credentials ? { credentials: options.credentials } : {}), ...(options.stsClient ? { stsClient: options.stsClient } : {}) })
    : options.credentials ?? defaultProvider();
}

/**
 * The cluster's authentication mode (DescribeCluster's `accessConfig.authenticationMode`: `API`, `API_AND_CONFIG_MAP`
 * or `CONFIG_MAP`), undefined when EKS does not say. Access entries, such as the one the stack creates for the
 * function's role, are honoured only in the first two.
 */
export async function eksAuthenticationMode(options: Omit<EksKubeConfigOptions, 'now' | 'validForMs'>): Promise<string | undefined> {
  const client = options.eksClient ?? new EKSClient({ region: options.region, credentials: await eksCredentials(options) });
  const { cluster } = await client.send(new DescribeClusterCommand({ name: options.clusterName }));
  return cluster?.accessConfig?.authenticationMode;
}

const cache = new Map<string, { config: KubeConfig; expires: number }>();

export async function eksKubeConfig(options: EksKubeConfigOptions): Promise<KubeConfig> {
  const now = options.now ?? (() => new Date());
  const key = `${options.assumeRole?.roleArn ?? 'own'}/${options.region}/${options.clusterName}`;
  const cached = cache.get(key);
  if (cached && cached.expires > now().getTime() + (options.validForMs ?? 0)) return cached.config;
  if ((options.validForMs ?? 0) > tokenLifetimeMs) {
    throw new Error(`an EKS token lives ${tokenLifetimeMs / 60_000} minutes, less than the ${Math.ceil((options.validForMs ?? 0) / 60_000)} asked for; keep the function timeout under 14 minutes`);
  }
  const credentials = await eksCredentials(options);
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

/**
 * The KubeConfig of a configured EKS cluster (`cluster.eks`): its name and region, through its roleArn (and externalId)
 * when set, assumed as `sessionName` (STS takes 64 characters at most). The deployed function and the CLI's plan and
 * check differ only in the credentials they start from and the session's name.
 */
export function eksKubeConfigOf(cluster: EksCluster, sessionName: string, options: Pick<EksKubeConfigOptions, 'validForMs'> = {}): Promise<KubeConfig> {
  return eksKubeConfig({ ...eksOptionsOf(cluster, sessionName), ...options });
}

/** The authentication mode of a configured EKS cluster, asked as eksKubeConfigOf asks for its endpoint. */
export function eksAuthenticationModeOf(cluster: EksCluster, sessionName: string): Promise<string | undefined> {
  return eksAuthenticationMode(eksOptionsOf(cluster, sessionName));
}

function eksOptionsOf(cluster: EksCluster, sessionName: string): EksKubeConfigOptions {
  const { roleArn, externalId } = cluster;
  return {
    clusterName: cluster.name, region: cluster.region,
    ...(roleArn !== undefined ? { assumeRole: { roleArn, ...(externalId !== undefined ? { externalId } : {}), sessionName: sessionName.slice(0, 64) } } : {}),
  };
}
