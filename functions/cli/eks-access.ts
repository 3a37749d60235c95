// EKS from the command line: `check` and `plan` (read-only) reach an `eks:` target with this machine's AWS credentials
// (and the target's roleArn), as an operator runs kubectl. `reconcile` (writes) does not: writing an EKS target is the
// deployed function's job, under its own identity and record key (see reconcileOnEksRefusal).
import type { KubeConfig } from '@kubernetes/client-node';
import { AwsSetupError, awsSetupFailureOf, awsSetupFix, awsSetupMessage, eksAccessPermissions } from '../adapters/aws/aws-setup-failure.ts';
import type { EksCluster } from '../domain/cluster-key.ts';
import { ConfigError, type Config } from '../domain/config.ts';

/** A KubeConfig for an EKS cluster from this machine's AWS credentials; `sessionName` names the assumed-role session. */
export function eksFromThisMachine(sessionName: string): (cluster: EksCluster) => Promise<KubeConfig> {
  return async (cluster) => {
    const { eksKubeConfigOf } = await import('../adapters/kube/eks-cluster.ts');
    try {
      return await eksKubeConfigOf(cluster, sessionName);
    } catch (error) {
      const failure = awsSetupFailureOf(error);
      if (failure === undefined) throw error;
      throw new AwsSetupError(`cannot reach EKS cluster ${cluster.name} (${cluster.region}): ${awsSetupMessage(error) ?? ''}`,
        awsSetupFix(failure, eksAccessPermissions(cluster)), { cause: error });
    }
  };
}

/**
 * The account this machine's AWS credentials belong to, for an EKS target without a roleArn named also with one
 * (app/resolve-clusters.ts); undefined without credentials: the two are then told apart by their names alone.
 */
export async function ownAccountOfThisMachine(): Promise<string | undefined> {
  const { callerAccountOnce } = await import('../adapters/aws/caller-account.ts');
  return callerAccountOnce()().catch(() => undefined);
}

/**
 * `reconcile` against EKS targets is refused (exit 2), before anything is read or written: a pass that writes there
 * belongs to the deployed function. It runs as the IAM role the RBAC manifest grants (an operator's credentials are
 * usually an administrator's), signs recreation records with the deployment's key, which only the function may read
 * (records signed with another key are refused by the function, and a StatefulSet whose record is refused stays
 * absent until a person acts), and its queue runs one pass per cluster at a time.
 */
export function refuseReconcileOnEks(config: Config, source: string): void {
  const eks = config.targets.filter((t) => 'eks' in t.cluster);
  if (eks.length === 0) return;
  throw new ConfigError(source, eks.map((t) => `target ${t.name}: reconcile does not write to an EKS cluster from here; the deployed function does, `
    + 'as the role the RBAC manifest grants and with the record key only it reads. Run `plan` here to see what it would do, and to have it run now: '
    + '`aws lambda invoke --function-name <the Dispatcher function> out.json` (infra/README.md, step 7)'
    + `${config.targets.length > eks.length ? `; --target NAME reconciles one of the other targets (${config.targets.filter((t) => !('eks' in t.cluster)).map((t) => t.name).join(', ')})` : ''}`));
}
