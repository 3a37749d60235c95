// A target's EKS cluster may name a role to assume (another account) with an external ID.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../functions/domain/config.ts';

const config = (eks: string): string => `targets:
  - name: prod-us
    source: { local: { directory: ./gitops, paths: ["**/*.yaml"] } }
    cluster:
      eks: ${eks}
    namespaces: { default: db, allow: [db] }
`;

describe('eks.roleArn and eks.externalId', () => {
  it('are read into the target', () => {
    const parsed = parseConfig(config('{ name: prod-us, region: us-east-1, roleArn: "arn:aws:iam::210987654321:role/access", externalId: acme-volumes }'), 'c.yaml', '/tmp');
    const cluster = parsed.targets[0]?.cluster;
    assert.ok(cluster && 'eks' in cluster);
    assert.deepEqual(cluster.eks, { name: 'prod-us', region: 'us-east-1', roleArn: 'arn:aws:iam::210987654321:role/access', externalId: 'acme-volumes' });
  });

  it('refuses a role that is not an IAM role ARN, and an external ID without a role', () => {
    assert.throws(() => parseConfig(config('{ name: p, region: us-east-1, roleArn: "arn:aws:iam::123:user/x" }'), 'c.yaml', '/tmp'), /roleArn/);
    assert.throws(() => parseConfig(config('{ name: p, region: us-east-1, externalId: acme }'), 'c.yaml', '/tmp'), /roleArn/);
  });
});
