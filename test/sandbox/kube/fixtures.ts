// What the Kubernetes sandbox tests share: the `pg` StatefulSet they seed, whether kubectl is here to drive, and how
// a refused client-node call is read, and the `sandbox` command run as a child.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';
import { ApiException, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/** client-node options sending a patch as a JSON merge patch. */
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The status code and message of the API server's refusal of `promise`; a call that succeeds fails the test. */
export async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, String(error));
    const e = error as ApiException<string>;
    return { code: e.code, message: (JSON.parse(e.body) as { message: string }).message };
  }
  assert.fail('expected the call to fail');
}

/** apps/v1 StatefulSet `db/pg`: one `data` template of 10Gi, postgres pods labelled app=pg. */
export function pgStatefulSet(replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', namespace: 'db' },
    spec: {
      replicas, serviceName: 'pg', selector: { matchLabels: { app: 'pg' } },
      template: { metadata: { labels: { app: 'pg' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }],
    },
  };
}

/** True when kubectl runs here; otherwise says plainly in the test's output that kubectl was not exercised. */
export async function kubectlAvailable(t: TestContext): Promise<boolean> {
  try {
    await promisify(execFile)('kubectl', ['version', '--client']);
    return true;
  } catch {
    t.diagnostic('kubectl is not installed on this machine: this test did not run kubectl');
    return false;
  }
}

/** `sts-volume-gitops sandbox ... --json` as a child process, once it has printed how to reach it; stderr kept. */
export interface SandboxCommand {
  info: Record<string, string>;
  stderr: () => string;
  /** SIGINT (or `signal`), then the exit code (null when the signal itself ended it). */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

export async function startSandboxCommand(args: readonly string[], env: Record<string, string> = {}): Promise<SandboxCommand> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', 'sandbox', ...args, '--json'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => { errors += chunk.toString('utf8'); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(output) as Record<string, unknown>;
      } catch {
        return; // not complete yet
      }
      // Under --json a refusal is JSON too ({"error": ...}); it is not a sandbox's details: wait for the exit.
      if (parsed.error === undefined) resolve(parsed as Record<string, string>);
    });
    void exited.then((code) => reject(new Error(`sandbox exited early with ${String(code)}: ${errors}`)));
  });
  return {
    info,
    stderr: () => errors,
    stop: (signal = 'SIGINT') => {
      child.kill(signal);
      return exited;
    },
  };
}
