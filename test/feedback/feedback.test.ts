// Feedback in GitHub, end to end: both sandboxes, the real Octokit and client-node, passes through runTargets.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { applyPass, commentBodies, passUntil, statusesOf, writeFiles } from '../support/passes.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

function manifest(name: string, storage: string, options: { storageClass?: string; accessMode?: string; replicas?: number } = {}): string {
  return `# ${name}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ${name}
  namespace: db
spec:
  serviceName: ${name}
  replicas: ${options.replicas ?? 2}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
        - name: main
          image: "busybox:1.36"
  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [${options.accessMode ?? 'ReadWriteOnce'}]
        storageClassName: ${options.storageClass ?? 'standard'}
        resources:
          requests:
            storage: ${storage}
`;
}

const seed = {
  namespaces: ['db'],
  storageClasses: [
    { name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } },
    { name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '50Gi' } },
    { name: 'fixed', allowVolumeExpansion: false },
  ],
  statefulSets: [] as unknown[],
};

describe('feedback in GitHub', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();

  const pass = (): Promise<TargetRun> => applyPass(config, env);
  const converge = (until: (run: TargetRun) => boolean): Promise<TargetRun> => passUntil(pass, kube, until);

  const statusesFor = (sha: string, context: string): ReturnType<typeof statusesOf> => statusesOf(github, sha, context);

  function statusesByContext(context: string): Array<{ sha: string; state: string; description: string | null }> {
    return github.state.statuses.filter((s) => s.context === context).map((s) => ({ sha: s.sha, state: s.state, description: s.description }));
  }

  const comments = (pr: number): string[] => commentBodies(github, pr);

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-feedback-'));
    const repoDir = join(dir, 'repo');
    const files: Record<string, string> = {
      'k8s/pg.yaml': manifest('pg', '10Gi'),
      'k8s/archive.yaml': manifest('archive', '5Gi', { storageClass: 'fixed', replicas: 1 }),
      'k8s/warehouse.yaml': manifest('warehouse', '20Gi', { storageClass: 'capped', replicas: 1 }),
    };
    await writeFiles(repoDir, files);
    const { load } = await import('js-yaml');
    seed.statefulSets = Object.values(files).map((text) => load(text.replace(/^#.*\n/, '')));
    kube = await startKubeSandbox({ seed, workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: repoDir, workDir: join(dir, 'github') });
    const text = sandboxConfig(kube.kubeconfigPath, github.url, 'FEEDBACK_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]');
    config = parseConfig(text, 'feedback.yaml', dir);
    env.FEEDBACK_TOKEN = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  let growPr = 0;
  let shrinkPr = 0;

  it('gives a PR that grows a volume a green check and a plan comment, and does nothing more on the next pass', async () => {
    const head = await github.commitFiles({ branch: 'grow-pg', message: 'Grow pg to 20Gi', files: { 'k8s/pg.yaml': manifest('pg', '20Gi') } });
    growPr = await github.openPullRequest({ head: 'grow-pg', title: 'Grow pg' });
    const run = await pass();
    assert.deepEqual(statusesFor(head, 'sts-volume-gitops/validate (demo)'), [{ state: 'success', description: 'db/pg: 2 PVCs grow 10Gi → 20Gi' }]);
    const [comment] = comments(growPr);
    assert.ok(comment);
    assert.match(comment, /<!-- sts-volume-gitops:plan:demo -->/);
    assert.match(comment, /\| db\/pg \| data \| 2 \| 10Gi → 20Gi \| standard \(expandable\) \| no quota \| ✅ will resize \|/);
    assert.equal(run.feedback?.checks[0]?.state, 'success');
    github.requestLog.reset();
    await pass();
    assert.deepEqual(github.requestLog.writes(), [], 'an already reported head gets no new writes');
  });

  it('gives a PR that shrinks below capacity a red check with the reason and a link to the line', async () => {
    const head = await github.commitFiles({ branch: 'shrink-pg', message: 'Shrink pg', files: { 'k8s/pg.yaml': manifest('pg', '5Gi') } });
    shrinkPr = await github.openPullRequest({ head: 'shrink-pg', title: 'Shrink pg' });
    await pass();
    const [status] = statusesFor(head, 'sts-volume-gitops/validate (demo)');
    assert.equal(status?.state, 'failure');
    assert.match(status?.description ?? '', /^db\/pg data: 5Gi is not above the current capacity of data-pg-0 \(10Gi\)/);
    assert.ok((status?.description ?? '').length <= 140);
    assert.match(comments(shrinkPr)[0] ?? '', new RegExp(`\\(https://github\\.com/acme/platform-gitops/blob/${head}/k8s/pg\\.yaml#L29\\)`));
  });

  it('gives an accessModes edit and a non-expandable class red checks with their reasons', async () => {
    const modesHead = await github.commitFiles({ branch: 'modes', message: 'RWX', files: { 'k8s/pg.yaml': manifest('pg', '20Gi', { accessMode: 'ReadWriteMany' }) } });
    await github.openPullRequest({ head: 'modes', title: 'RWX' });
    const fixedHead = await github.commitFiles({ branch: 'grow-archive', message: 'Grow archive', files: { 'k8s/archive.yaml': manifest('archive', '10Gi', { storageClass: 'fixed', replicas: 1 }) } });
    await github.openPullRequest({ head: 'grow-archive', title: 'Grow archive' });
    await pass();
    assert.match(statusesFor(modesHead, 'sts-volume-gitops/validate (demo)')[0]?.description ?? '', /changes more than its storage request/);
    assert.match(statusesFor(fixedHead, 'sts-volume-gitops/validate (demo)')[0]?.description ?? '', /StorageClass fixed does not allow volume expansion/);
  });

  it('turns the check green when a fix is pushed, editing the same comment', async () => {
    const fixed = await github.commitFiles({ branch: 'shrink-pg', message: 'Grow instead', files: { 'k8s/pg.yaml': manifest('pg', '30Gi') } });
    await pass();
    assert.equal(statusesFor(fixed, 'sts-volume-gitops/validate (demo)')[0]?.state, 'success');
    assert.equal(comments(shrinkPr).length, 1, 'edited, never duplicated');
    assert.match(comments(shrinkPr)[0] ?? '', /10Gi → 30Gi/);
  });

  it('after merge, moves the progress status from pending to success as the sandbox resizes', async () => {
    const introducing = github.state.pulls.find((p) => p.number === growPr)?.headSha;
    await github.mergePullRequest(growPr);
    const context = 'sts-volume-gitops/demo/db/pg';
    const done = await converge((run) => run.feedback?.progress.some((p) => p.statefulSet === 'db/pg' && p.state === 'success') ?? false);
    assert.ok(done);
    const statuses = statusesByContext(context);
    assert.ok(statuses.every((s) => s.sha === introducing), `set on the commit that introduced the size ${introducing ?? ''}: ${JSON.stringify(statuses)}`);
    assert.equal(statuses[0]?.state, 'pending');
    assert.match(statuses[0]?.description ?? '', /^resizing: [01]\/2 replicas at 20Gi$/);
    assert.equal(statuses.at(-1)?.state, 'success');
    assert.equal(statuses.at(-1)?.description, '2/2 replicas at 20Gi');
    const progress = comments(growPr).find((c) => c.includes('progress:demo:db/pg'));
    assert.match(progress ?? '', /\| data-pg-1 \| 20Gi \| 20Gi \| ✅ done \| [^|]+ \|/);
  });

  it('makes zero GitHub writes over passes where nothing changes', async () => {
    await pass();
    github.requestLog.reset();
    for (let i = 0; i < 3; i++) await pass();
    assert.deepEqual(github.requestLog.writes(), []);
  });

  it('turns the status red when the driver fails the expansion', async () => {
    await github.commitFiles({ branch: 'grow-warehouse', message: 'Grow warehouse', files: { 'k8s/warehouse.yaml': manifest('warehouse', '100Gi', { storageClass: 'capped', replicas: 1 }) } });
    const pr = await github.openPullRequest({ head: 'grow-warehouse', title: 'Grow warehouse' });
    await github.mergePullRequest(pr);
    await converge((run) => run.feedback?.progress.some((p) => p.statefulSet === 'db/warehouse' && p.state === 'failure') ?? false);
    const last = statusesByContext('sts-volume-gitops/demo/db/warehouse').at(-1);
    assert.equal(last?.state, 'failure');
    // The ControllerResizeError condition in the external-resizer's words (test/conformance/csi).
    assert.match(last?.description ?? '', /^data: failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity \d+ exceeds maximum allowed \d+/);
    assert.match(comments(pr).find((c) => c.includes('progress:demo:db/warehouse')) ?? '', /The driver said/);
  });
});
