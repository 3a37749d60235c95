// `sandbox pr` refuses a wrong flag as a usage error (exit 2) before it asks the sandbox anything: a mistyped
// --method is the user's to fix, not the sandbox refusing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sandboxPullRequestCommand } from '../../functions/cli/sandbox-pr-command.ts';

describe('sandbox pr usage', () => {
  it('refuses a --method other than merge or squash as a usage error, naming both', async () => {
    const printed: string[] = [];
    // Nothing listens on port 1: were the sandbox asked, the answer would be a connection failure.
    const env = { STS_SANDBOX_GITHUB_URL: 'http://127.0.0.1:1', STS_SANDBOX_GITHUB_TOKEN: 'ghp_unused' };
    const code = await sandboxPullRequestCommand(['merge', '7', '--method', 'rebase', '--json'], env, (text) => printed.push(text));
    assert.equal(code, 2);
    const { error } = JSON.parse(printed.join('')) as { error: { kind: string; message: string } };
    assert.equal(error.kind, 'usage');
    assert.match(error.message, /--method must be merge or squash, not "rebase"/);
  });
});
