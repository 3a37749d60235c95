// `sts-volume-gitops demo` interrupted with Ctrl-C (SIGINT) leaves nothing behind: its temporary folder holds a git
// repository, kubeconfigs and the demo's record key.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { it } from 'node:test';

it('demo interrupted by SIGINT removes its temporary folder and ends by that signal', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'demo-interrupt-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', 'demo'], { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => { errors += chunk.toString('utf8'); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  // Once it says where its configuration is, both sandboxes run out of its folder.
  const configuration = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /^Configuration\s+(\S+)$/m.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`demo ended before it started: ${output}${errors}`)));
  });
  const folder = dirname(configuration);
  assert.ok(folder.startsWith(join(tmp, 'sts-volume-gitops-demo-')), folder);
  assert.ok(existsSync(join(folder, 'kube')) && existsSync(join(folder, 'github')), 'the sandboxes work in the demo\'s folder');
  child.kill('SIGINT');
  const { code, signal } = await exited;
  assert.deepEqual({ code, signal }, { code: null, signal: 'SIGINT' }, errors);
  assert.equal(existsSync(folder), false, `${folder} is left behind`);
  assert.deepEqual((await readdir(tmp)).filter((name) => name.startsWith('sts-volume-gitops')), []);
  await rm(tmp, { recursive: true, force: true });
});
