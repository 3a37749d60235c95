// EKS access for the worker: DescribeCluster and an access entry (to the Kubernetes group infra/k8s/rbac.yaml binds)
// per cluster of this account the config names, or sts:AssumeRole for a cluster reached through a role. Made by stack.ts.
import { Token, type Stack } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Config } from '../functions/domain/config.ts';

/** The Kubernetes group the access entry maps the function's role to; infra/k8s/rbac.yaml binds it. */
export const kubernetesGroup = 'sts-volume-gitops';

/**
 * The clusters of this account (no roleArn) that are not in the stack's region, each said with what to do: their
 * access entries are made in their region, by a stack deployed there. Empty when the region is not known (an
 * environment-agnostic stack).
 */
export function clusterRegionProblems(config: Config, stackRegion: string | undefined): string[] {
  if (stackRegion === undefined || Token.isUnresolved(stackRegion)) return [];
  const elsewhere = new Map<string, string>();
  for (const target of config.targets) {
    if ('eks' in target.cluster && target.cluster.eks.roleArn === undefined && target.cluster.eks.region !== stackRegion) elsewhere.set(target.cluster.eks.name, target.cluster.eks.region);
  }
  return [...elsewhere].map(([name, region]) => `EKS cluster ${name} is in ${region}, but this stack deploys to ${stackRegion} (AWS_REGION, or the AWS profile's region): `
    + `its access entry is made in the cluster's region. Deploy with AWS_REGION=${region}; clusters in several regions take one stack per region, `
    + 'each deployed with a configuration of that region\'s targets (infra/README.md, "Clusters in several regions")');
}

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
  const [problem] = clusterRegionProblems(config, stack.region);
  if (problem !== undefined) throw new Error(problem);
  for (const cluster of clusters.values()) {
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
