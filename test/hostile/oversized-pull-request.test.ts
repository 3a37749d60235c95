// One pull request cannot knock a target out (issue 34 item 1): a PR adding a 95 MiB YAML file, or a 1 GiB one (known
// from the tree's size alone), under the target's paths. Each pass runs in a process of its own (measured-pass.ts)
// against the sandboxes, through the real Octokit: nothing over the per-file limit is requested (no blob of it, no
// tarball, no answer larger than a file within the limit), the file is a located error on that pull request's check,
// and the branch's pass and the other pull requests' checks go on. A pull request whose tree GitHub truncates gets a
// failed check saying so, not a failed feedback step. The peak RSS of each pass is printed, with and without the files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it, type TestContext } from 'node:test';
import { byteCount } from '../../functions/domain/byte-count.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { pgManifest, startOneSetWorld } from '../feedback/one-set-world.ts';
import type { MeasuredPass } from './measured-pass.ts';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./measured-pass.ts', import.meta.url));
const mib = 1024 * 1024;
/** The per-file limit (domain/manifests.ts defaultManifestLimits.maxFileBytes). */
const limit = mib;
/** A YAML sequence, one item a line: a valid YAML file of any size. */
const padding = '- { name: padding, value: "0123456789abcdef0123456789abcdef0123456789abcdef" }\n';
const context = 'sts-volume-gitops/validate (demo)';

describe('a pull request adding a file too large to read', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let configPath: string;
  const env: Record<string, string> = sandboxRecordKeyEnv();

  async function measuredPass(t: TestContext, what: string): Promise<MeasuredPass> {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', child, JSON.stringify({ configPath, env })], { maxBuffer: 16 * mib });
    const measured = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as MeasuredPass;
    t.diagnostic(`peak RSS of a pass ${what}: ${(measured.maxRssKiB / 1024).toFixed(0)} MiB`);
    return measured;
  }
  const statusOf = (sha: string): string | undefined =>
    github.state.statuses.filter((s) => s.sha === sha && s.context === context).at(-1)?.state;
  const commentOn = (pr: number): string => github.state.comments.filter((c) => c.issue === pr).map((c) => c.body).join('\n');
  const blobSha = async (commit: string, path: string): Promise<string> => {
    const entry = (await github.state.git.listTree(commit, true)).find((e) => e.path === path);
    assert.ok(entry, path);
    return entry.sha;
  };

  before(async () => {
    const world = await startOneSetWorld('sts-oversized-');
    ({ kube, github } = world);
    configPath = join(world.dir, 'config.yaml');
    await writeFile(configPath, sandboxConfig(kube.kubeconfigPath, github.url, 'OVERSIZED_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]'));
    env.OVERSIZED_TOKEN = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('leaves a 95 MiB and a 1 GiB file unread, a located error on their pull requests, and every other check and pass goes on', async (t) => {
    await github.commitFiles({ branch: 'grow', message: 'Grow to 20Gi', files: { 'k8s/pg.yaml': pgManifest('20Gi') } });
    const growPr = await github.openPullRequest({ head: 'grow', title: 'Grow to 20Gi' });
    const without = await measuredPass(t, 'without the files');
    assert.equal(without.error, undefined, without.error);
    assert.deepEqual(without.failures, []);

    // The same pull request moves on, and three others arrive: the two files, and a tree too large to list.
    const growHead = await github.commitFiles({ branch: 'grow', message: 'Grow to 25Gi', files: { 'k8s/pg.yaml': pgManifest('25Gi') } });
    const hugeHead = await github.commitFiles({ branch: 'huge', message: 'A generated file', files: { 'k8s/huge.yaml': { repeat: padding, bytes: 95 * mib } } });
    const hugePr = await github.openPullRequest({ head: 'huge', title: 'A generated file' });
    const gigaHead = await github.commitFiles({ branch: 'giga', message: 'A larger one', files: { 'k8s/giga.yaml': { repeat: padding, bytes: 1024 * mib } } });
    const gigaPr = await github.openPullRequest({ head: 'giga', title: 'A larger one' });
    const sprawl: Record<string, string> = {};
    for (let i = 0; i < 30; i++) sprawl[`k8s/sprawl/set-${i}.yaml`] = `# ${i}\n`;
    const sprawlHead = await github.commitFiles({ branch: 'sprawl', message: 'Thirty files', files: sprawl });
    const sprawlPr = await github.openPullRequest({ head: 'sprawl', title: 'Thirty files' });
    // GitHub cuts a recursive tree at 100,000 entries; here at 20, which the branch's and the others' trees are within.
    github.state.treeEntryLimit = 20;
    github.requestLog.reset();

    const withFiles = await measuredPass(t, 'with them');
    assert.equal(withFiles.error, undefined, withFiles.error);
    assert.equal(withFiles.outcome, 'ok');
    assert.deepEqual(withFiles.failures, [], 'no pull request failed the feedback step');
    assert.equal(statusOf(growHead), 'success', 'the other pull request got its check');
    for (const [pr, head, path, bytes] of [[hugePr, hugeHead, 'k8s/huge.yaml', 95 * mib], [gigaPr, gigaHead, 'k8s/giga.yaml', 1024 * mib]] as const) {
      assert.equal(statusOf(head), 'failure', path);
      assert.ok(commentOn(pr).includes(`${path}:1`), commentOn(pr));
      assert.ok(commentOn(pr).includes(`file is ${byteCount(bytes)}, over the limit of ${byteCount(limit)}; it was not read`.replace(/[()]/g, '\\$&')), commentOn(pr));
    }
    assert.equal(statusOf(sprawlHead), 'failure');
    assert.match(commentOn(sprawlPr), /has more files than GitHub lists in one recursive call \\\(it was truncated\\\); nothing was read/);
    assert.ok(growPr > 0);

    // Nothing over the limit was asked for: not the blobs, not the tarball, and no answer could have carried them.
    const big = [await blobSha(hugeHead, 'k8s/huge.yaml'), await blobSha(gigaHead, 'k8s/giga.yaml')];
    const entries = github.requestLog.entries;
    assert.deepEqual(entries.filter((e) => e.operation === 'git.getBlob' && big.some((sha) => e.path.endsWith(sha))), []);
    assert.deepEqual(entries.filter((e) => e.operation === 'repos.downloadTarballArchive' || e.operation === 'codeload.tarball'), []);
    const largest = Math.max(...entries.map((e) => e.bytes));
    assert.ok(largest < 2 * limit, `the largest answer was ${largest} bytes`);
    t.diagnostic(`largest answer: ${largest} bytes; peak RSS ${(without.maxRssKiB / 1024).toFixed(0)} -> ${(withFiles.maxRssKiB / 1024).toFixed(0)} MiB`);
    // Loose on purpose (two processes' peaks differ by some MiB): the 95 MiB file's bytes alone would be 95 MiB more,
    // and as JSON, base64 and text they took the pass from 208 to 790 MiB before the fix.
    assert.ok(withFiles.maxRssKiB < without.maxRssKiB + 48 * 1024, `peak RSS ${withFiles.maxRssKiB} KiB with the files, ${without.maxRssKiB} KiB without`);
  });

  it('once merged, the branch\'s pass reports the file as a located error and serves the rest', async (t) => {
    github.state.treeEntryLimit = 100_000;
    await github.mergePullRequest(github.state.pulls.find((p) => p.head === 'huge')?.number ?? 0);
    github.requestLog.reset();
    const merged = await measuredPass(t, 'of the branch holding the 95 MiB file');
    assert.equal(merged.error, undefined, merged.error);
    assert.equal(merged.outcome, 'ok');
    assert.deepEqual(merged.manifestErrors, [{ path: 'k8s/huge.yaml', line: 1, message: 'file is 95 MiB (99,614,720 bytes), over the limit of 1 MiB (1,048,576 bytes); it was not read' }]);
    assert.deepEqual(merged.failures, []);
    assert.ok(Math.max(...github.requestLog.entries.map((e) => e.bytes)) < 2 * limit);
  });
});
