// What the end-to-end feedback and recovery tests share: a seed repository written to disk, passes through runTargets
// as the Lambda runs them (no waiting between polls), and the GitHub sandbox's statuses and comments read back.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import type { Config } from '../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';

/** A pass that never waits: not for Pods (the sandbox's controllers are stepped instead), nor between GitHub writes. */
export const noWaiting = { maxWaitMs: 0, pollIntervalMs: 0, sleep: (): Promise<void> => Promise.resolve(), spaceGitHubWrites: false };

/** Writes `files` (path -> text) under `dir`, making folders as needed. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** One apply pass of the config's only target; a target that failed fails the test with its error. */
export async function applyPass(config: Config, env: Record<string, string>): Promise<TargetRun> {
  const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting });
  assert.ok(run);
  assert.equal(run.error, undefined, run.error);
  return run;
}

/** Passes, the sandbox's controllers advancing between them, until `until` holds (at most 20). */
export async function passUntil(pass: () => Promise<TargetRun>, kube: KubeSandbox, until: (run: TargetRun) => boolean): Promise<TargetRun> {
  for (let i = 0; i < 20; i++) {
    const run = await pass();
    if (until(run)) return run;
    kube.tick(2);
  }
  assert.fail('did not converge in 20 passes');
}

export function statusesOf(github: GitHubSandbox, sha: string, context: string): Array<{ state: string; description: string | null }> {
  return github.state.statuses.filter((s) => s.sha === sha && s.context === context).map((s) => ({ state: s.state, description: s.description }));
}

export function commentBodies(github: GitHubSandbox, pr: number): string[] {
  return github.state.comments.filter((c) => c.issue === pr).map((c) => c.body);
}
