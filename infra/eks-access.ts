// EKS access for the worker: DescribeCluster and an access entry (to the Kubernetes group infra/k8s/rbac.yaml binds)
// per cluster of this account the config names, or sts:AssumeRole for a cluster reached through a role. Made by stack.ts.
import { Token, type Stack } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Config } from '../functions/domain/config.ts';

/** The Kubernetes group the access entry maps the function's role to; infra/k8s/rbac.yaml binds it. */
export const kubernetesGroup = 'sts-volume-gitops';

/** Per EKS cluster in the config: DescribeCluster on it and an access entry mapping the role to the Kubernetes group. */
export function grantClusterAccess(stack: Stack, config: Config, worker: nodejs.NodejsFunction): void {
  const clusters = new Map<string, { name: string; region: string }>();
  const assumedRoles = new Set<string>();
  for (const target of config.targets) {
    if (!('eks' in target.cluster)) continue;
    // A cluster reached through an assumed role: that role (in the cluster's account) has the access entry and may
    // describe the cluster; this stack's worker may only assume it.
    if (target.cluster.eks.roleArn !== undefined) assumedRoles.add(target.cluster.eks.roleArn);
    else clusters.set(`${target.cluster.eks.region}/${target.cluster.eks.name}`, target.cluster.eks);
  }
  if (assumedRoles.size > 0) worker.addToRolePolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [...assumedRoles].sort() }));
  for (const cluster of clusters.values()) {
    if (!Token.isUnresolved(stack.region) && cluster.region !== stack.region) {
      throw new Error(`EKS cluster ${cluster.name} is in ${cluster.region}, but this stack deploys to ${stack.region}; its access entry must be created in the cluster's region (deploy the stack there)`);
    }
    const clusterArn = stack.formatArn({ service: 'eks', region: cluster.region, resource: 'cluster', resourceName: cluster.name });
    worker.addToRolePolicy(new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [clusterArn] }));
    new eks.CfnAccessEntry(stack, `Access-${cluster.name}`, {
      clusterName: cluster.name,
      principalArn: worker.role?.roleArn ?? '',
      type: 'STANDARD',
      kubernetesGroups: [kubernetesGroup],
    });
  }
}
