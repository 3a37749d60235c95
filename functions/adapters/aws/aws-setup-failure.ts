// An AWS call that never left this machine: no credentials (the SDK's CredentialsProviderError, when no provider of
// the default chain found any) or no region. Said as what is missing and how to provide it, never as a fault of the
// secret or cluster asked for.
import type { EksCluster } from '../../domain/cluster-key.ts';

export type AwsSetupFailure = 'credentials' | 'region';

/** Which setup is missing behind `error` (its cause chain), or undefined when the call failed for another reason. */
export function awsSetupFailureOf(error: unknown): AwsSetupFailure | undefined {
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth++) {
    const { name, message, cause } = current as { name?: unknown; message?: unknown; cause?: unknown };
    if (name === 'CredentialsProviderError') return 'credentials';
    // @smithy/config-resolver throws plain Errors for these: their words are all there is to go on.
    if (typeof message === 'string' && /^Region is missing|^Region not accepted/.test(message)) return 'region';
    current = cause;
  }
  return undefined;
}

/** What is missing, with the SDK's own words: `no AWS credentials were found on this machine (...)`. */
function describeAwsSetupFailure(failure: AwsSetupFailure, sdkMessage: string): string {
  return failure === 'credentials'
    ? `no AWS credentials were found on this machine (the AWS SDK's CredentialsProviderError: ${sdkMessage})`
    : `no AWS region is set on this machine (the AWS SDK: ${sdkMessage})`;
}

/** The failure's sentence when `error` is one, else undefined. */
export function awsSetupMessage(error: unknown): string | undefined {
  const failure = awsSetupFailureOf(error);
  if (failure === undefined) return undefined;
  let innermost: unknown = error;
  while (typeof innermost === 'object' && innermost !== null && (innermost as { cause?: unknown }).cause !== undefined) innermost = (innermost as { cause?: unknown }).cause;
  return describeAwsSetupFailure(failure, innermost instanceof Error ? innermost.message : String(innermost));
}

/** How to provide what is missing; `allowing` names what the credentials must be allowed (`secretsmanager:GetSecretValue on X`). */
export function awsSetupFix(failure: AwsSetupFailure, allowing: string): string {
  return failure === 'credentials'
    ? `provide AWS credentials allowed ${allowing}: \`aws sso login --profile NAME\` then export AWS_PROFILE=NAME, or \`aws configure\`, or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones)`
    : `export AWS_REGION=<the region of the resource> (or set region in the AWS profile), with credentials allowed ${allowing}`;
}

/** What the credentials that reach an EKS cluster must be allowed: `eks:DescribeCluster on NAME` (`and sts:AssumeRole on ARN`). */
export function eksAccessPermissions(cluster: Pick<EksCluster, 'name' | 'roleArn'>): string {
  return `eks:DescribeCluster on ${cluster.name}${cluster.roleArn !== undefined ? ` and sts:AssumeRole on ${cluster.roleArn}` : ''}`;
}

/**
 * A call this machine's AWS setup cannot make: what is missing (`problem`) and how to provide it (`fix`), said together
 * by its message (a plan's error) and apart by `check` (its message and fix lines).
 */
export class AwsSetupError extends Error {
  constructor(readonly problem: string, readonly fix: string, options?: ErrorOptions) {
    super(`${problem}; ${fix}`, options);
    this.name = 'AwsSetupError';
  }
}
