// A fresh container's first read of a large repository: one tarball call (GitHub's 302 to codeload, followed by
// Octokit) instead of a blob GET per file, every archived file checked against the tree's SHA, and blob reads for what
// the archive leaves out or changes (export-ignore, export-subst). Against the GitHub sandbox, with the real Octokit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { archiveFromBlobs, GitHubSource } from '../../functions/adapters/github/github-source.ts';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { readTarball, tarFiles, TarArchiveError } from '../../functions/adapters/github/tar-archive.ts';
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

describe('the tar reader', () => {
  it('refuses a damaged archive rather than reading part of it', async () => {
    const gh = await startGitHubSandbox({ seedDir });
    try {
      const octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
      const answer = await octokit.rest.repos.downloadTarballArchive({ ...repo, ref: 'main' });
      assert.ok(answer.data instanceof ArrayBuffer);
      const gzipped = Buffer.from(answer.data);
      const tar = gunzipSync(gzipped);
      assert.ok(readTarball(gzipped, 64 * 1024 * 1024).some((f) => f.path === 'README.md'));
      const flipped = Buffer.from(tar);
      flipped[1024 + 10] = (flipped[1024 + 10] ?? 0) ^ 0x01;
      assert.throws(() => tarFiles(flipped), TarArchiveError);
      assert.throws(() => tarFiles(tar.subarray(0, 1024 + 512 + 10)), TarArchiveError);
      assert.throws(() => readTarball(gzipped, 1024), TarArchiveError);
      assert.throws(() => readTarball(Buffer.from('not gzip'), 1024), TarArchiveError);
    } finally {
      await gh.close();
    }
  });
});
