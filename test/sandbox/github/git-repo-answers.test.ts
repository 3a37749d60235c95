// The sandbox's git repository asks git once about objects named by full SHAs (they never change) and keeps those
// answers; "no such object" is asked again. Refs are read once until one may have moved: by the repository's own
// update-ref, or by a push (git's own process, as `git-http.ts` runs it, which then says refs may have moved).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { GitRepo } from '../../../sandbox/github/git-repo.ts';

const run = promisify(execFile);
const author = { name: 'Dana Developer', email: 'dana@example.com', date: '2026-11-28T12:00:00Z' };

describe('GitHub sandbox: answers about git objects', () => {
  let dir: string;
  let git: GitRepo;
  /** git itself, outside the repository under test (as a push's receive-pack writes). */
  const outside = async (args: string[], input?: string): Promise<string> => {
    const child = run('git', ['--git-dir', git.dir, ...args], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
    if (input !== undefined) child.child.stdin?.end(input);
    return (await child).stdout.trim();
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-git-answers-'));
    git = await GitRepo.init(join(dir, 'repo.git'), 'main');
  });
  after(async () => {
    git.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers again about a commit that was not there yet, and about a branch that moved', async () => {
    const tree = await git.buildTree(undefined, new Map([['a.txt', { mode: '100644', sha: await git.writeBlob(Buffer.from('a\n')) }]]));
    const first = await git.commitTree(tree, [], 'First', author);
    await git.updateRef('refs/heads/main', first);
    const text = `tree ${tree}\nparent ${first}\nauthor Dana Developer <dana@example.com> 1795867200 +0000\ncommitter Dana Developer <dana@example.com> 1795867200 +0000\n\nPushed\n`;
    const pushed = await outside(['hash-object', '-t', 'commit', '--stdin'], text);
    assert.equal(await git.resolve(pushed), undefined);
    assert.equal(await git.isAncestor(first, pushed), false);
    assert.equal(await git.commitInfo(pushed), undefined);
    assert.equal(await git.mergeBase(first, pushed), undefined);
    assert.equal(await git.resolve('refs/heads/main'), first);

    assert.equal(await outside(['hash-object', '-w', '-t', 'commit', '--stdin'], text), pushed);
    await outside(['update-ref', 'refs/heads/main', pushed]);
    git.refsMayHaveMoved();
    assert.equal(await git.resolve(pushed), pushed);
    assert.equal(await git.isAncestor(first, pushed), true);
    assert.deepEqual((await git.commitInfo(pushed))?.parents, [first]);
    assert.equal(await git.mergeBase(first, pushed), first);
    assert.equal(await git.resolve('refs/heads/main'), pushed);
    assert.deepEqual(await git.log('refs/heads/main'), [pushed, first]);
  });

  it('resolves branches and lists refs as git does, after its own ref updates and deletions', async () => {
    const main = await git.resolve('refs/heads/main');
    assert.ok(main);
    await git.updateRef('refs/heads/feature', main);
    await git.updateRef('refs/heads/feature-b', main);
    await git.updateRef('refs/heads/team/x', main);
    await git.updateRef('refs/tags/feature', (await git.commitInfo(main))?.parents[0] ?? '');
    const gitSays = async (args: string[]): Promise<string | undefined> => outside(args).then((out) => out || undefined, () => undefined);
    for (const name of ['main', 'feature', 'heads/feature', 'refs/heads/feature', 'team/x', 'team', 'refs/heads/nothing', 'nothing', 'HEAD', 'main~1', main.slice(0, 7)]) {
      assert.equal(await git.resolve(name), await gitSays(['rev-parse', '--verify', '--quiet', `${name}^{commit}`]), name);
    }
    for (const pattern of ['refs/', 'refs/heads/', 'refs/heads', 'refs/heads/feature', 'refs/heads/feat', 'refs/heads/team', 'refs/heads/team/', 'refs/tags', 'refs/heads/f*']) {
      const listed = (await outside(['for-each-ref', '--format=%(refname) %(objectname)', pattern])).split('\n').filter((l) => l !== '');
      assert.deepEqual((await git.refs(pattern)).map((r) => `${r.ref} ${r.sha}`), listed, pattern);
    }
    await git.deleteRef('refs/tags/feature');
    assert.equal(await git.resolve('feature'), main);
    await git.deleteRef('refs/heads/feature');
    assert.equal(await git.resolve('refs/heads/feature'), undefined);
    assert.deepEqual((await git.refs('refs/heads/')).map((r) => r.ref), ['refs/heads/feature-b', 'refs/heads/main', 'refs/heads/team/x']);
  });

  it('keeps the same answers about objects however often it is asked, and what callers change of them is theirs', async () => {
    const main = await git.resolve('refs/heads/main');
    assert.ok(main);
    const [parent] = (await git.commitInfo(main))?.parents ?? [];
    assert.ok(parent);
    for (let i = 0; i < 3; i++) {
      assert.equal(await git.isAncestor(main, parent), false);
      assert.equal(await git.isAncestor(parent, main), true);
      assert.deepEqual(await git.log(main), [main, parent]);
    }
    const entries = await git.listTree(main, true);
    assert.deepEqual(entries.map((e) => e.path), ['a.txt']);
    entries.pop();
    (await git.log(main)).pop();
    const info = await git.commitInfo(main);
    info?.parents.pop();
    assert.deepEqual((await git.listTree(main, true)).map((e) => e.path), ['a.txt']);
    assert.deepEqual(await git.log(main), [main, parent]);
    assert.deepEqual((await git.commitInfo(main))?.parents, [parent]);
    assert.deepEqual((await git.changedFiles(parent, main)), []);
  });
});
