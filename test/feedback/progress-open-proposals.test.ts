// A template's progress lists its open proposals of every kind in one line (issue 36 item 2): those no sentence above
// already links (a recovery's way out, a write-back on the blocked "decrease"), never a closed, waiting or failed one.
// Pure renders first, then both sandboxes (real Octokit and client-node, usage from the sandbox's Prometheus): a growth
// pull request open for one template of a set while a person's change to another template of it is applied.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import type { StatefulSetReport, TemplateReport } from '../../functions/engine/run-pass.ts';
import { renderProgressComment } from '../../functions/feedback/render-progress.ts';
import type { ProposalOutcome } from '../../functions/proposals/proposal.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { applyPass, commentBodies, writeFiles } from '../support/passes.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const url = (n: number): string => `https://github.com/acme/gitops/pull/${n}`;
const outcome = (kind: ProposalOutcome['kind'], action: ProposalOutcome['action'], n: number, from: string, to: string, key = 'db/pg/data'): ProposalOutcome => ({
  key, kind, action, pullRequest: n, pullRequestUrl: url(n), change: { from, to },
});

function template(name: string, overrides: Partial<TemplateReport> = {}): TemplateReport {
  return {
    templateName: name, desiredSize: '20Gi', commitSha: 'a'.repeat(40), replicas: 2, readyReplicas: 1, action: 'resize', from: '10Gi',
    storageClassName: 'standard', storageClassExpandable: true, finished: false, justFinished: false, reasons: [], pvcs: [],
    storageLocation: { path: 'k8s/pg.yaml', line: 29, column: 22 }, quota: [], failureEvents: [], ...overrides,
  };
}
const sts: StatefulSetReport = {
  namespace: 'db', name: 'pg', outcome: 'in-progress', podManagementPolicy: 'OrderedReady', replicas: 2, templateUpdate: undefined,
  templates: [template('data', { action: 'unchanged', desiredSize: '10Gi', finished: true }), template('wal')], notes: [],
};

describe('the open proposals in a progress comment', () => {
  it('lists each template\'s open pull requests of every kind in one line, under that template', () => {
    const proposals = [
      outcome('growth', 'unchanged', 14, '10Gi', '15Gi'), outcome('write-back', 'opened', 15, '10Gi', '12Gi'),
      outcome('growth', 'opened', 16, '20Gi', '30Gi', 'db/pg/wal'),
    ];
    const markdown = renderProgressComment({ target: 'prod', sts, commitSha: 'd'.repeat(40), proposals }).markdown;
    assert.match(markdown, /\n#### `data` → 10Gi[^\n]*\n\nOpen pull requests: \[growth pull request #14\]\(https:\/\/github\.com\/acme\/gitops\/pull\/14\) proposes 10Gi → 15Gi; \[write-back pull request #15\]\(https:\/\/github\.com\/acme\/gitops\/pull\/15\) proposes 10Gi → 12Gi\.\n/);
    assert.match(markdown, /\n#### `wal` → 20Gi[^]*\nOpen pull requests: \[growth pull request #16\]\(https:\/\/github\.com\/acme\/gitops\/pull\/16\) proposes 20Gi → 30Gi\.\n/);
    assert.equal(markdown.match(/Open pull requests:/g)?.length, 2);
  });

  it('leaves out what a sentence above already links, and what is not open', () => {
    const proposals = [
      outcome('size-recovery', 'opened', 9, '20Gi', '15Gi', 'db/pg/wal'), outcome('class-recovery', 'unchanged', 10, 'gold', 'silver', 'db/pg/wal'),
      outcome('growth', 'closed', 11, '10Gi', '15Gi'), outcome('growth', 'waiting', 12, '10Gi', '15Gi'), outcome('write-back', 'declined-before', 13, '10Gi', '12Gi'),
    ];
    const markdown = renderProgressComment({ target: 'prod', sts, commitSha: 'd'.repeat(40), proposals, recoveryLinks: new Map([['db/pg/wal', url(9)]]) }).markdown;
    assert.match(markdown, /A recovery pull request proposes a size that can succeed: https:\/\/github\.com\/acme\/gitops\/pull\/9\n\nOpen pull requests: \[recovery pull request #10\]\(https:\/\/github\.com\/acme\/gitops\/pull\/10\) proposes class gold → silver\.\n/);
    assert.equal(markdown.match(/Open pull requests:/g)?.length, 1);
    assert.doesNotMatch(markdown, /pull\/1[123]\b/);
  });
});

describe('a growth pull request in the progress of a change to another template of its set', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const wal = (size: string): string => `    - metadata: { name: wal }\n      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: ${size} } } }\n`;
  const manifest = (walSize: string): string => statefulSetManifest({ name: 'pg', storage: '10Gi', replicas: 1, extraTemplates: wal(walSize) });

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-progress-proposals-'));
    await writeFiles(join(dir, 'repo'), { 'k8s/pg.yaml': manifest('1Gi') });
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }],
        statefulSets: [load(manifest('1Gi'))],
        volumeUsage: [{ namespace: 'db', claim: 'data-pg-0', used: '8.5Gi' }, { namespace: 'db', claim: 'wal-pg-0', used: '0.2Gi' }],
      },
    });
    kube.tick(5);
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'PROGRESS_PROPOSALS_TOKEN', [], {
      recordKey: { env: Object.keys(sandboxRecordKeyEnv())[0] ?? '' }, stateNamespace: 'default', prometheusUrl: kube.prometheus.url,
    }), 'c.yaml', dir);
    env.PROGRESS_PROPOSALS_TOKEN = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('links it under its template in the progress comment on the merged change', async () => {
    const first = await applyPass(config, env);
    const growth = first.growth?.outcomes.find((o) => o.key === 'db/pg/data' && o.action === 'opened') ?? assert.fail('no growth pull request opened');
    await github.commitFiles({ branch: 'wal-2', message: 'Grow wal to 2Gi', files: { 'k8s/pg.yaml': manifest('2Gi') } });
    const merged = await github.openPullRequest({ head: 'wal-2', title: 'Grow wal to 2Gi' });
    await github.mergePullRequest(merged);
    const run = await applyPass(config, env);
    assert.equal(run.growth?.outcomes.find((o) => o.key === 'db/pg/data')?.action, 'unchanged');
    const [comment] = commentBodies(github, merged).filter((b) => b.includes('Volume resize of db/pg'));
    assert.ok(comment, commentBodies(github, merged).join('\n---\n'));
    const [data, walSection] = comment.split('\n#### `wal`');
    assert.match(data ?? '', new RegExp(`\\nOpen pull requests: \\[growth pull request #${growth.pullRequest ?? 0}\\]\\(${growth.pullRequestUrl ?? ''}\\) proposes 10Gi → 15Gi\\.\\n`));
    assert.doesNotMatch(walSection ?? '', /Open pull requests/);
  });
});
