// The account the functions run in, asked of STS once per cold start and only when a target's cluster needs it (an
// EKS cluster without a roleArn named also with one: app/resolve-clusters.ts).
import { callerAccountOnce } from '../adapters/aws/caller-account.ts';

export const ownAccount = callerAccountOnce();
