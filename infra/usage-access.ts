// What the worker needs to read usage (issue 36): aps:QueryMetrics on each Amazon Managed Service for Prometheus
// workspace a target signs for (SigV4), and the secrets holding bearer tokens (`auth.bearer.secret`), each read-only
// and named, never `*`. Made by stack.ts.
import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Config } from '../functions/domain/config.ts';

/** A workspace's query URL: `https://aps-workspaces.<region>.amazonaws.com/workspaces/<id>`. */
const workspaceUrl = /^https:\/\/aps-workspaces\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/workspaces\/(ws-[A-Za-z0-9-]+)\/?$/;

export function grantUsageAccess(stack: Stack, config: Config, worker: nodejs.NodejsFunction): void {
  const workspaces = new Set<string>();
  const secrets = new Set<string>();
  for (const target of config.targets) {
    const prometheus = target.usage?.prometheus;
    const auth = prometheus?.auth;
    if (!prometheus || !auth) continue;
    if ('sigv4' in auth) {
      const match = workspaceUrl.exec(prometheus.url);
      if (!match) {
        throw new Error(`target ${target.name}: usage.prometheus.auth.sigv4 is granted aps:QueryMetrics on its workspace, but ${prometheus.url} is not a workspace's query URL (https://aps-workspaces.<region>.amazonaws.com/workspaces/<workspace id>)`);
      }
      workspaces.add(stack.formatArn({ service: 'aps', region: match[1] ?? '', resource: 'workspace', resourceName: match[2] ?? '' }));
    } else if (auth.bearer.secret !== undefined) secrets.add(auth.bearer.secret);
  }
  if (workspaces.size > 0) worker.addToRolePolicy(new iam.PolicyStatement({ actions: ['aps:QueryMetrics'], resources: [...workspaces].sort() }));
  [...secrets].sort().forEach((name, index) => {
    const secret = name.startsWith('arn:')
      ? secretsmanager.Secret.fromSecretCompleteArn(stack, `PrometheusToken${index}`, name)
      : secretsmanager.Secret.fromSecretNameV2(stack, `PrometheusToken${index}`, name);
    secret.grantRead(worker);
  });
}
