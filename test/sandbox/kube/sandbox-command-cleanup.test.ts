// `sts-volume-gitops sandbox` keeps its sandboxes, kubeconfigs and record key in a temporary folder: stopped by Ctrl-C
// (SIGINT) or SIGTERM, or failing to start, it removes the folder, secrets included.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { startSandboxCommand } from './fixtures.ts';

/** What the command left in its own temporary directory (TMPDIR points the child there; tsx keeps its cache beside). */
async function leftBehind(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('sts-volume-gitops-sandbox-'));
}

describe('the sandbox command\'s temporary folder', () => {
  it('is removed on Ctrl-C, with the record key and the kubeconfigs in it', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'sts-cleanup-'));
    const sandbox = await startSandboxCommand([], { TMPDIR: tmp });
    const folder = dirname(sandbox.info.config ?? '');
    assert.deepEqual(await leftBehind(tmp), [folder.slice(tmp.length + 1)]);
    assert.ok(existsSync(join(folder, 'record-key')) && existsSync(sandbox.info.toolKubeconfig ?? ''), 'the secrets are in it while it runs');
    assert.equal(await sandbox.stop('SIGINT'), 0);
    assert.deepEqual(await leftBehind(tmp), []);
  });

  it('is removed on SIGTERM, for one sandbox alone too', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'sts-cleanup-'));
    const sandbox = await startSandboxCommand(['kube'], { TMPDIR: tmp });
    assert.ok(existsSync(sandbox.info.kubeconfig ?? ''));
    assert.equal(await sandbox.stop('SIGTERM'), 0);
    assert.deepEqual(await leftBehind(tmp), []);
  });

  it('is removed when a sandbox cannot start, which says why (a port in use, exit 2)', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'sts-cleanup-'));
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as { port: number }).port;
      await assert.rejects(startSandboxCommand(['github', '--port', String(port)], { TMPDIR: tmp }),
        new RegExp(`^Error: sandbox exited early with 2: --port ${port}: the port is in use; choose another \\(0 takes any free port\\)\\n$`));
      assert.deepEqual(await leftBehind(tmp), []);
    } finally {
      busy.close();
    }
  });
});
