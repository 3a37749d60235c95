// A sandbox config authenticated as the GitHub sandbox's App instead of a token: what the tests of check runs, forks,
// foreign verdicts and `check` share.
import assert from 'node:assert/strict';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';

/** `text` with its `token: { env: ... }` replaced by the sandbox's App, whose private key the environment variable `keyVariable` holds. */
export function withSandboxApp(text: string, github: GitHubSandbox, keyVariable: string): string {
  const replaced = text.replace(/token: \{ env: [A-Za-z0-9_]+ \}/, `app: { appId: ${github.app.appId}, installationId: ${github.app.installationId}, privateKey: { env: ${keyVariable} } }`);
  assert.notEqual(replaced, text, 'the config names a token to replace');
  return replaced;
}
