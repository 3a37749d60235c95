// A fresh container's first read of a large repository: one tarball call (GitHub's 302 to codeload, followed by
// Octokit) instead of a blob GET per file, every archived file checked against the tree's SHA, and blob reads for what
// the archive leaves out or changes (export-ignore, export-subst). Against the GitHub sandbox, with the real Octokit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { archiveFromBlobs, GitHubSource } from '../../functions/adapters/github/github-source.ts';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { readTarball, TarArchiveError, TarReader, type ArchivedFile } from '../../functions/adapters/github/tar-archive.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';

const seedDir = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));
const repo = { owner: 'acme', repo: 'platform-gitops' };

/** A manifest unique to this run: the blob cache is per process, and other tests read the same seed. */
function manifest(name: string, salt: string): string {
  return `apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: ${name}\n  namespace: db\n  annotations:\n    run: "${salt}"\nspec:\n  serviceName: ${name}\n  selector:\n    matchLabels: { app: ${name} }\n  template: {}\n  volumeClaimTemplates:\n    - metadata: { name: data }\n      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 10Gi } } }\n`;
}

describe('reading a large repository through its tarball', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  const salt = randomUUID();
  const longDir = `k8s/${'very-long-directory-name-'.repeat(5)}`;
  const files: Record<string, string> = {};
  for (let i = 0; i < archiveFromBlobs + 10; i++) files[`k8s/many/set-${i}.yaml`] = manifest(`set-${i}`, salt);
  files[`${longDir}/deep.yaml`] = manifest('deep', salt);
  files['k8s/ignored.yaml'] = manifest('ignored', salt);
  files['k8s/subst.yaml'] = `${manifest('subst', salt)}# built from $Format:%H$\n`;
  files['.gitattributes'] = 'k8s/ignored.yaml export-ignore\nk8s/subst.yaml export-subst\n';

  before(async () => {
    gh = await startGitHubSandbox({ seedDir });
    octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
    await gh.commitFiles({ branch: 'main', message: 'Many StatefulSets', files });
  });
  after(() => gh.close());

  it('answers the tarball as GitHub does: 302 to codeload, then a gzipped tar under {owner}-{repo}-{sha}/', async () => {
    const head = (await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    const redirect = await fetch(`${gh.url}/repos/acme/platform-gitops/tarball/main`, { headers: { authorization: `token ${gh.token}` }, redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.match(redirect.headers.get('location') ?? '', /\/acme\/platform-gitops\/legacy\.tar\.gz\/main$/);
    const answer = await octokit.rest.repos.downloadTarballArchive({ ...repo, ref: head });
    assert.ok(answer.data instanceof ArrayBuffer);
    const paths = tarFiles(gunzipSync(Buffer.from(answer.data))).map((f) => f.path);
    assert.ok(paths.includes(`acme-platform-gitops-${head.slice(0, 7)}/k8s/many/set-0.yaml`));
    assert.ok(paths.includes(`acme-platform-gitops-${head.slice(0, 7)}/${longDir}/deep.yaml`), 'a path over 100 bytes (pax header)');
    await assert.rejects(octokit.rest.repos.downloadTarballArchive({ ...repo, ref: 'no-such-branch' }), (e: { status?: number }) => e.status === 404);
  });

  it('reads every matching file with one tarball call, and as blobs only those the archive leaves out or changes', async () => {
    gh.requestLog.reset();
    const snapshot = await new GitHubSource(octokit, repo, 'main', ['k8s/**/*.yaml']).readBranchHead();
    const counts = gh.requestLog.countsByOperation();
    assert.equal(counts['repos.downloadTarballArchive'], 1);
    assert.equal(counts['codeload.tarball'], 1);
    // export-ignore leaves k8s/ignored.yaml out; export-subst changes k8s/subst.yaml's bytes (its SHA no longer matches).
    assert.equal(counts['git.getBlob'], 2);
    for (const [path, text] of Object.entries(files)) {
      if (path.startsWith('k8s/')) assert.equal(snapshot.files.get(path), text, path);
    }
    assert.ok(snapshot.files.size >= archiveFromBlobs + 13);
  });

  it('says so when the tarball cannot be had, and reads every file as a blob instead', async () => {
    const more: Record<string, string> = {};
    for (let i = 0; i < archiveFromBlobs; i++) more[`k8s/more/set-${i}.yaml`] = manifest(`more-${i}`, `${salt}-more`);
    await gh.commitFiles({ branch: 'main', message: 'More StatefulSets', files: more });
    gh.faults.failNext('GET', 'repos.downloadTarballArchive', 1, 404);
    gh.requestLog.reset();
    const warnings: string[] = [];
    const snapshot = await new GitHubSource(octokit, repo, 'main', ['k8s/more/*.yaml'], [], (message) => warnings.push(message)).readBranchHead();
    assert.equal(gh.requestLog.countsByOperation()['git.getBlob'], archiveFromBlobs);
    assert.deepEqual(Object.fromEntries(snapshot.files), more);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /^the tarball of [0-9a-f]{12} could not be read \(.*\); reading 50 files one by one$/);
  });

  it('reads a few files as blobs, without the archive', async () => {
    const few = { 'k8s/few/a.yaml': manifest('a', `${salt}-few`), 'k8s/few/b.yaml': manifest('b', `${salt}-few`) };
    await gh.commitFiles({ branch: 'main', message: 'Two more', files: few });
    gh.requestLog.reset();
    const snapshot = await new GitHubSource(octokit, repo, 'main', ['k8s/few/*.yaml']).readBranchHead();
    const counts = gh.requestLog.countsByOperation();
    assert.equal(counts['repos.downloadTarballArchive'], undefined);
    assert.equal(counts['git.getBlob'], 2);
    assert.deepEqual(Object.fromEntries(snapshot.files), few);
  });
});

/** Every regular file of an uncompressed tar, with its full path in the archive, read in one chunk. */
function tarFiles(tar: Buffer): ArchivedFile[] {
  const reader = new TarReader(() => true);
  reader.write(tar);
  return reader.end();
}

describe('the tar reader', () => {
  let gh: GitHubSandbox;
  let gzipped: Buffer;
  const salt = randomUUID();
  before(async () => {
    gh = await startGitHubSandbox({ seedDir });
    await gh.commitFiles({
      branch: 'main', message: 'A long path and a large file',
      files: { [`k8s/${'long-directory-name-'.repeat(8)}/deep.yaml`]: manifest('deep', salt), 'docs/large.yaml': { repeat: '- padding\n', bytes: 3 * 1024 * 1024 } },
    });
    const octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
    const answer = await octokit.rest.repos.downloadTarballArchive({ ...repo, ref: 'main' });
    assert.ok(answer.data instanceof ArrayBuffer);
    gzipped = Buffer.from(answer.data);
  });
  after(() => gh.close());

  it('refuses a damaged archive rather than reading part of it', async () => {
    const tar = gunzipSync(gzipped);
    const read = (bytes: Buffer, maxBytes = 64 * 1024 * 1024): Promise<ArchivedFile[]> => readTarball(Readable.from([bytes]), () => true, maxBytes);
    assert.ok((await read(gzipped)).some((f) => f.path === 'README.md'));
    const flipped = Buffer.from(tar);
    flipped[1024 + 10] = (flipped[1024 + 10] ?? 0) ^ 0x01;
    assert.throws(() => tarFiles(flipped), TarArchiveError);
    assert.throws(() => tarFiles(tar.subarray(0, 1024 + 512 + 10)), TarArchiveError);
    await assert.rejects(read(gzipSync(flipped)), TarArchiveError);
    await assert.rejects(read(gzipped, 1024), /unpacks to more than 1024 bytes/);
    await assert.rejects(read(Buffer.from('not gzip')), TarArchiveError);
  });

  it('holds only the files it is asked to keep, and is told each one\'s path and size', async () => {
    const asked = new Map<string, number>();
    const kept = await readTarball(Readable.from([gzipped]), (path, bytes) => {
      asked.set(path, bytes);
      return path.startsWith('k8s/');
    }, 64 * 1024 * 1024);
    assert.equal(asked.get('docs/large.yaml'), 3 * 1024 * 1024, 'asked, and passed over');
    assert.ok(kept.length > 0 && kept.every((f) => f.path.startsWith('k8s/')));
    assert.ok(kept.some((f) => f.path.endsWith('/deep.yaml') && f.content.toString('utf8') === manifest('deep', salt)), 'a path from a pax header');
  });

  it('reads the same files however the archive is cut into chunks', () => {
    const tar = gunzipSync(gzipped);
    const whole = tarFiles(tar).filter((f) => !f.path.endsWith('large.yaml')).map((f) => [f.path, f.content.toString('base64')]);
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: tar.length - 1 }), { maxLength: 40 }), (cuts) => {
      const reader = new TarReader((name) => !name.endsWith('large.yaml'));
      let from = 0;
      for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
        reader.write(tar.subarray(from, cut));
        from = cut;
      }
      reader.write(tar.subarray(from));
      assert.deepEqual(reader.end().map((f) => [f.path, f.content.toString('base64')]), whole);
    }), { numRuns: 200 });
  });
});
