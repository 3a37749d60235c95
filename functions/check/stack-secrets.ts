// The secrets the stack creates (infra/stack.ts: one per `privateKey.secret` and `recordKey.secret` the config names
// by name, not by ARN) do not exist before the first deployment: `check` run first, as infra/README.md's steps have
// it, says so as a warning with when to check again, never as an error that cannot be cleared before deploying.
import { secretDoesNotExist } from '../adapters/github/secrets.ts';
import { warning, type CheckResult } from './check-result.ts';

export type StackSecret = 'app-key' | 'record-key';

/** Whether the stack creates a secret the config names so: by name (an ARN names one made elsewhere). */
export function stackCreates(secretName: string): boolean {
  return !secretName.startsWith('arn:');
}

/**
 * A warning when reading `secretName` failed because it does not exist and the stack creates it at deploy; undefined
 * for any other failure (the caller's error then).
 */
export function secretBeforeDeploy(kind: StackSecret, id: string, subject: string, secretName: string, cause: unknown): CheckResult | undefined {
  if (!stackCreates(secretName) || !secretDoesNotExist(cause)) return undefined;
  const afterDeploy = '(if the stack is deployed already, it created no secret of this name: check the spelling against the stack\'s)';
  return kind === 'record-key'
    ? warning(id, subject, `secret ${secretName} does not exist yet: the stack creates it at deploy, with a generated key`,
      `nothing to do before deploying; check again after \`cdk deploy\` (infra/README.md, step 4) ${afterDeploy}`)
    : warning(id, subject, `secret ${secretName} does not exist yet: the stack creates it, empty, at deploy; the App installation, the repository and the paths are checked once the key is stored there`,
      `deploy (infra/README.md, step 4), store the App's private key in ${secretName} (step 5), then check again ${afterDeploy}`);
}
