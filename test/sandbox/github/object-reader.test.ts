// The sandbox reads git objects through one long-lived `git cat-file --batch`: parallel reads each get their own
// object (binary, empty and multi-chunk contents framed by size), missing objects are answered as GitHub does (404),
// and objects written after the reader started are found.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { GitRepo } from '../../../sandbox/github/git-repo.ts';
import { assertMatchesOpenApi } from './openapi.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';

/** The SHA git gives a blob: independent of the code under test. */
function blobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

describe('GitHub sandbox: git objects read through one batch process', () => {
  let dir: string;
  let git: GitRepo;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-object-reader-'));
    git = await GitRepo.init(join(dir, 'repo.git'), 'main');
  });
  after(async () => {
    git.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers parallel reads each with its own bytes: binary, newlines, empty, and larger than a pipe chunk', async () => {
    const contents = [
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      Buffer.from('line one\nline two\n\n'),
      Buffer.alloc(0),
      Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 7 }, (_, i) => (i * 31) % 251)),
      ...Array.from({ length: 40 }, (_, i) => Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n`)),
    ];
    const shas = await Promise.all(contents.map((c) => git.writeBlob(c)));
    assert.deepEqual(shas, contents.map(blobSha));
    // Twice over, all at once, in an order unlike the writes.
    const order = [...shas, ...shas].reverse();
    const read = await Promise.all(order.map((sha) => git.readBlob(sha)));
    for (const [i, sha] of order.entries()) {
      const expected = contents[shas.indexOf(sha)];
      assert.ok(read[i]?.equals(expected ?? Buffer.alloc(1)), `blob ${sha} read back byte for byte`);
    }
  });

  it('answers a missing object, and a non-blob asked for as a blob, with nothing; later reads still work', async () => {
    const written = Buffer.from('written before the misses\n');
    const sha = await git.writeBlob(written);
    const tree = await git.buildTree(undefined, new Map([['a.txt', { mode: '100644', sha }]]));
    const [missing, treeAsBlob, blob] = await Promise.all([git.readBlob('0'.repeat(40)), git.readBlob(tree), git.readBlob(sha)]);
    assert.equal(missing, undefined);
    assert.equal(treeAsBlob, undefined);
    assert.ok(blob?.equals(written));
    assert.equal(await git.objectType(tree), 'tree');
    assert.equal(await git.objectType('f'.repeat(40)), undefined);
  });

  it('finds objects written after the reader started, by full and by abbreviated name', async () => {
    assert.equal(await git.objectType(blobSha(Buffer.from('late'))), undefined);
    const late = Buffer.from('late');
    const sha = await git.writeBlob(late);
    assert.ok((await git.readBlob(sha))?.equals(late));
    assert.ok((await git.readBlob(sha.slice(0, 12)))?.equals(late));
  });
});

describe('GitHub sandbox: blobs over the API from the batch reader', () => {
  let octokit: GitHubClient;
  const repo = exampleRepo;
  useExampleGitHub(async (suite) => {
    octokit = suite.octokit;
  });

  it('serves every file of a tree in parallel, and answers an unknown blob 404 Not Found as GitHub does', async () => {
    const head = await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' });
    const tree = await octokit.rest.git.getTree({ ...repo, tree_sha: head.data.object.sha, recursive: 'true' });
    const blobs = tree.data.tree.filter((e) => e.type === 'blob');
    assert.ok(blobs.length > 3, 'the seed has several files');
    const answers = await Promise.all(blobs.map((e) => octokit.rest.git.getBlob({ ...repo, file_sha: e.sha ?? '' })));
    for (const [i, answer] of answers.entries()) {
      assertMatchesOpenApi('git/get-blob', 200, answer.data);
      const bytes = Buffer.from(answer.data.content, 'base64');
      assert.equal(blobSha(bytes), blobs[i]?.sha);
      assert.equal(answer.data.size, bytes.length);
    }
    await assert.rejects(octokit.rest.git.getBlob({ ...repo, file_sha: '0123456789abcdef0123456789abcdef01234567' }), (error: { status?: number; response?: { data?: { message?: string; documentation_url?: string } } }) => {
      assert.equal(error.status, 404);
      assert.equal(error.response?.data?.message, 'Not Found');
      assert.equal(typeof error.response?.data?.documentation_url, 'string');
      return true;
    });
  });
});
