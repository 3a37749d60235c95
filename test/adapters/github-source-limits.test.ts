// What GitHubSource reads is decided from the tree's sizes before any download (issue 34 item 1), against the GitHub
// sandbox with the real Octokit: a file over the limit is neither a blob request nor held from the tarball, a commit
// too large for a pass is refused before anything is fetched, and the blob cache keeps at most its bound.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { GitHubSource } from '../../functions/adapters/github/github-source.ts';
import { useExampleGitHub, exampleRepo } from '../support/example-github.ts';

const mib = 1024 * 1024;
const limit = mib;

/** A manifest unique to this run: the blob cache is per process, and other tests read the same seed. */
function manifest(name: string, salt: string): string {
  return `apiVersion: apps/v1\nkind: StatefulSet\nmetadata: { name: ${name}, namespace: db, annotations: { run: "${salt}" } }\nspec:\n  serviceName: ${name}\n  selector: { matchLabels: { app: ${name} } }\n  template: {}\n  volumeClaimTemplates:\n    - metadata: { name: data }\n      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 10Gi } } }\n`;
}

/** A YAML file of `bytes` bytes, its content unique to `salt`. */
function padded(salt: string, bytes: number): { repeat: string; bytes: number } {
  return { repeat: `- { run: "${salt}", value: "0123456789abcdef0123456789abcdef" }\n`, bytes };
}

describe('GitHubSource reads nothing over its limits', () => {
  const suite = useExampleGitHub();
  const source = (globs: string[]): GitHubSource => new GitHubSource(suite.octokit, exampleRepo, 'main', globs);
  const blobReads = (): number => suite.gh.requestLog.countsByOperation()['git.getBlob'] ?? 0;

  it('leaves a file over the limit out of the blob reads, as a file too large', async () => {
    const salt = randomUUID();
    await suite.gh.commitFiles({ branch: 'main', message: 'Two files', files: { 'k8s/few/pg.yaml': manifest('pg', salt), 'k8s/few/bundle.yaml': padded(salt, 2 * mib) } });
    suite.gh.requestLog.reset();
    const snapshot = await source(['k8s/few/*.yaml']).readBranchHead();
    assert.equal(blobReads(), 1, 'only the file within the limit');
    assert.deepEqual([...snapshot.files.keys()], ['k8s/few/pg.yaml']);
    assert.deepEqual([...snapshot.tooLarge], [['k8s/few/bundle.yaml', 2 * mib]]);
    assert.ok(snapshot.paths.includes('k8s/few/bundle.yaml'), 'still a file of the commit');
  });

  it('holds no file over the limit from the tarball, wanted or not', async () => {
    const salt = randomUUID();
    const files: Record<string, string | { repeat: string; bytes: number }> = {
      'k8s/bulk/big.yaml': padded(salt, 5 * mib), 'docs/big.yaml': padded(`${salt}-docs`, 5 * mib),
    };
    for (let i = 0; i < 60; i++) files[`k8s/bulk/set-${i}.yaml`] = manifest(`set-${i}`, salt);
    await suite.gh.commitFiles({ branch: 'main', message: 'Many files and two large ones', files });
    suite.gh.requestLog.reset();
    const snapshot = await source(['k8s/bulk/*.yaml']).readBranchHead();
    const counts = suite.gh.requestLog.countsByOperation();
    assert.equal(counts['codeload.tarball'], 1, 'the many files came in one tarball');
    assert.equal(counts['git.getBlob'], undefined, 'and none was read twice');
    assert.equal(snapshot.files.size, 60);
    assert.equal(snapshot.files.has('k8s/bulk/big.yaml'), false);
    assert.deepEqual([...snapshot.tooLarge], [['k8s/bulk/big.yaml', 5 * mib]]);
  });

  it('refuses a commit whose files, each within the limit, are together more than a pass reads, before fetching any', async () => {
    const salt = randomUUID();
    const files: Record<string, { repeat: string; bytes: number }> = {};
    for (let i = 0; i < 33; i++) files[`k8s/wide/part-${i}.yaml`] = padded(`${salt}-${i}`, limit);
    await suite.gh.commitFiles({ branch: 'main', message: '33 MiB of files', files });
    suite.gh.requestLog.reset();
    await assert.rejects(source(['k8s/wide/*.yaml']).readBranchHead(), {
      name: 'SourceTooLargeError',
      message: /^the files the target's paths match at [0-9a-f]{12} are 33 MiB \(34,603,008 bytes\) together, over the limit of 32 MiB \(33,554,432 bytes\) a pass reads; nothing was read: narrow the paths$/,
    });
    const counts = suite.gh.requestLog.countsByOperation();
    assert.deepEqual([counts['git.getBlob'], counts['codeload.tarball']], [undefined, undefined]);
  });

  it('keeps at most its bound of blobs: the files read last stay, the older ones are read again', async () => {
    const commit = async (name: string): Promise<void> => {
      const files: Record<string, { repeat: string; bytes: number }> = {};
      for (let i = 0; i < 20; i++) files[`k8s/${name}/part-${i}.yaml`] = padded(`${randomUUID()}-${i}`, limit);
      await suite.gh.commitFiles({ branch: 'main', message: `20 MiB in ${name}`, files });
    };
    await commit('first');
    await commit('second');
    await source(['k8s/first/*.yaml']).readBranchHead();
    await source(['k8s/second/*.yaml']).readBranchHead();
    suite.gh.requestLog.reset();
    await source(['k8s/second/*.yaml']).readBranchHead();
    assert.equal(blobReads(), 0, 'the files read last are cached');
    await source(['k8s/first/*.yaml']).readBranchHead();
    assert.ok(blobReads() > 0, 'the 40 MiB read did not all stay: the cache is bounded at 32 MiB');
  });
});
