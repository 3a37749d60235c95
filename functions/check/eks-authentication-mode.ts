// An EKS cluster honours access entries (the stack's, mapping the function's role to the group `rbac` binds; or the
// one made by hand for a role in another account) only in authentication mode API or API_AND_CONFIG_MAP: in
// CONFIG_MAP, the aws-auth ConfigMap alone maps IAM identities, and the function is refused every call (pure judge).
import type { EksCluster } from '../domain/cluster-key.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';

export const eksAccessCheck = 'cluster.eks-access';
const accessEntryModes = ['API', 'API_AND_CONFIG_MAP'];

export function judgeEksAuthenticationMode(cluster: EksCluster, mode: string | undefined): CheckResult {
  const subject = `EKS ${cluster.name}`;
  const whose = cluster.roleArn === undefined ? 'the access entry the stack creates for the function\'s role' : `the access entry of ${cluster.roleArn} (made in the cluster's account)`;
  const fix = `\`aws eks update-cluster-config --name ${cluster.name} --region ${cluster.region} --access-config authenticationMode=API_AND_CONFIG_MAP\``
    + ' (keeps the aws-auth ConfigMap working beside access entries; it cannot be switched back to CONFIG_MAP)';
  if (mode === undefined) {
    return warning(eksAccessCheck, subject, `DescribeCluster does not say the cluster's authentication mode: ${whose} works only in API or API_AND_CONFIG_MAP`,
      `look in the EKS console (Access tab) or with \`aws eks describe-cluster --name ${cluster.name} --query cluster.accessConfig\`; if it is CONFIG_MAP, ${fix}`);
  }
  if (accessEntryModes.includes(mode)) return ok(eksAccessCheck, subject, `authentication mode ${mode}: access entries are honoured (${whose} among them)`);
  return error(eksAccessCheck, subject, `authentication mode ${mode}: access entries are ignored, so ${whose} maps nothing and every call of the function is refused`, fix);
}
