// Why `check` could not reach the target's cluster, named with the fix that fits the cause (pure): credentials the
// API server refused (401), a host name that does not resolve, a port nothing listens on, no answer, a TLS mismatch,
// an endpoint that is not a Kubernetes API server, or (EKS) no AWS credentials on this machine.
import type { KubeConfig } from '@kubernetes/client-node';
import { AwsSetupError, awsSetupFailureOf, awsSetupFix, eksAccessPermissions } from '../adapters/aws/aws-setup-failure.ts';
import type { TargetConfig } from '../domain/config.ts';
import { defaultRbacGroup } from '../app/rbac-manifest.ts';
import { ClusterError } from '../engine/ports.ts';
import { error, type CheckResult } from './check-result.ts';

/** The API server did not answer `/version` as one. */
export function judgeReachFailure(config: TargetConfig, kubeConfig: KubeConfig, cause: unknown): CheckResult {
  const server = kubeConfig.getCurrentCluster()?.server ?? 'the cluster';
  const message = cause instanceof Error ? cause.message : String(cause);
  const failure = cause instanceof ClusterError ? cause : undefined;
  const eks = 'eks' in config.cluster ? config.cluster.eks : undefined;
  const where = eks ? `EKS cluster ${eks.name} (${eks.region})` : kubeconfigWhere(config, kubeConfig, 'cluster');
  const result = (text: string, fix: string): CheckResult => error('cluster.reach', server, text, fix);
  if (failure?.status === 401) {
    return result(message, eks
      ? `EKS did not accept this IAM identity (\`aws sts get-caller-identity\` shows which): give it an access entry on ${eks.name} in group ${defaultRbacGroup} (\`aws eks create-access-entry --cluster-name ${eks.name} --principal-arn ARN --kubernetes-groups ${defaultRbacGroup}\`; the stack does this for the function's role), or set roleArn to a role that has one`
      : `the credentials of ${kubeconfigWhere(config, kubeConfig, 'user')} are wrong, expired or for another cluster: get a valid token (a ServiceAccount's: \`kubectl create token NAME -n NAMESPACE\`; a cloud login: log in again, e.g. \`aws eks update-kubeconfig\`, \`gcloud container clusters get-credentials\`) or client certificate, and put it in that user`);
  }
  switch (failure?.failure) {
    case 'dns':
      return result(message, eks
        ? `the endpoint of ${where} does not resolve from here: a private endpoint resolves only inside its VPC (run check there, or through its VPN)`
        : `correct the server URL of ${where} (${server}), or run where that name resolves (a private cluster's VPN or network)`);
    case 'refused':
      return result(message, `nothing listens at ${server}: correct the server URL and port of ${where}, or start what should answer there (the API server, or the tunnel or proxy to it)`);
    case 'blocked-port':
      return result(message, `serve the API server (or the tunnel or proxy to it) on another port, and correct the server URL of ${where}`);
    case 'timeout':
    case 'unreachable':
    case 'reset':
      return result(message, `open the network path from here to ${server} (VPN, firewall, security group, proxy), or run check where the tool runs`);
    case 'tls':
      return result(message, `the certificate ${server} presents does not match ${eks ? 'the cluster\'s certificate authority' : `the certificate-authority data of ${where}`}: correct the server URL or that CA (\`kubectl cluster-info\` with the same kubeconfig shows the same failure)`);
    case 'not-kubernetes':
      return result(message, `set the server URL of ${where} to the cluster's API server (\`kubectl cluster-info\` on a working kubeconfig prints it; often https://HOST:6443 or :443)`);
    default:
      return result(`the API server cannot be reached or read: ${message}`, eks
        ? 'check the cluster name and region, that the function\'s role (or roleArn) has an EKS access entry, and that the endpoint is reachable from where this runs'
        : `check ${where} and the network path to ${server}`);
  }
}

/** A KubeConfig could not be built: the kubeconfig file, or (EKS) the AWS side. */
export function judgeClusterSetupFailure(config: TargetConfig, cause: unknown): CheckResult {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (!('eks' in config.cluster)) return error('cluster.reach', config.cluster.kubeconfig.path, message, 'fix cluster.kubeconfig (path and context)');
  const { eks } = config.cluster;
  // The CLI's builder says what is missing and its fix together (a plan has no fix line): here they are said apart.
  if (cause instanceof AwsSetupError) return error('cluster.reach', `EKS ${eks.name}`, cause.problem, cause.fix);
  const allowing = eksAccessPermissions(eks);
  const setup = awsSetupFailureOf(cause);
  const name = (cause as { name?: unknown } | null)?.name;
  const fix = setup !== undefined ? awsSetupFix(setup, allowing)
    : name === 'ResourceNotFoundException' ? `no cluster ${eks.name} in ${eks.region}: fix cluster.eks.name or region (\`aws eks list-clusters --region ${eks.region}\`)`
      : `run check with AWS credentials allowed ${allowing}`;
  return error('cluster.reach', `EKS ${eks.name}`, message, fix);
}

/** `cluster prod (context prod) in kubeconfig ~/.kube/config`, or its user. */
function kubeconfigWhere(config: TargetConfig, kubeConfig: KubeConfig, part: 'cluster' | 'user'): string {
  if ('eks' in config.cluster) return 'the EKS cluster';
  const name = part === 'cluster' ? kubeConfig.getCurrentCluster()?.name : kubeConfig.getCurrentUser()?.name;
  return `${part} ${name ?? '?'} (context ${kubeConfig.getCurrentContext()}) in kubeconfig ${config.cluster.kubeconfig.path}`;
}
