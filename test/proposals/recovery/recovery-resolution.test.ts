// When a recovery PR may be closed (issue 13 item 1): only on positive evidence, never because a StatefulSet was not
// evaluated in this pass (pure); and what is left when the invocation runs short of time (against the GitHub sandbox).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { PassReport, StatefulSetReport, TemplateReport } from '../../../functions/engine/run-pass.ts';
import { createGitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { GitHubReviewHost } from '../../../functions/adapters/github/review-host.ts';
import { GitHubSource } from '../../../functions/adapters/github/github-source.ts';
import { manageRecoveryPullRequests } from '../../../functions/proposals/recovery/manage-recovery-pull-requests.ts';
import { classRecovery, sizeRecovery } from '../../../functions/proposals/recovery/recovery-kinds.ts';
import type { ProposalMark } from '../../../functions/proposals/lifecycle/marker.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';

function reviewPorts(gh: GitHubSandbox): { host: GitHubReviewHost; repository: GitHubSource } {
  const client = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
  const repo = { owner: gh.owner, repo: gh.repo };
  return { host: new GitHubReviewHost(client, repo), repository: new GitHubSource(client, repo, 'main', ['k8s/**/*.yaml']) };
}

const ref = { namespace: 'analytics', statefulSet: 'wh1', template: 'data' };
const proposal: ProposalMark = { identity: { kind: 'size-recovery', ...ref }, values: { from: '100Gi', to: '50Gi' } };

function template(desiredSize: string, finished = false): TemplateReport {
  return {
    templateName: 'data', desiredSize, commitSha: 'c0ffee', replicas: 1, readyReplicas: finished ? 1 : 0, action: 'resize', from: '10Gi',
    storageClassName: 'capped', storageClassExpandable: true, finished, justFinished: false, reasons: [], pvcs: [],
    storageLocation: { path: 'k8s/wh1.yaml', line: 20, column: 22 }, quota: [], failureEvents: [],
  };
}

function sts(outcome: StatefulSetReport['outcome'], templates: TemplateReport[]): StatefulSetReport {
  return { namespace: 'analytics', name: 'wh1', outcome, podManagementPolicy: 'OrderedReady', replicas: 1, templateUpdate: undefined, templates, notes: [] };
}

function report(statefulSets: StatefulSetReport[], extra: Partial<PassReport> = {}): PassReport {
  return { target: 'demo', mode: 'apply', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...extra };
}

const manifestError = { path: 'k8s/wh1.yaml', line: 3, column: 1, message: 'bad indentation' };

describe('resolution of a recovery pull request', () => {
  const cases: Array<[string, PassReport, string | undefined]> = [
    ['keeps it while the failure stands', report([sts('failed', [template('100Gi')])]), undefined],
    ['closes it when the expansion completed', report([sts('converged', [template('100Gi', true)])]), 'the expansion to 100Gi completed'],
    // One recovery pull request per template (issue 35 item 3): should the new size fail too, the same one is updated.
    ['keeps it while another size Git now holds is being applied', report([sts('in-progress', [template('60Gi')])]), undefined],
    ['closes it when Git holds another size and the volumes reached it', report([sts('converged', [template('60Gi', true)])]), 'the template changed in Git (now 60Gi, was 100Gi)'],
    ['closes it when Git holds another size that is blocked', report([sts('blocked', [{ ...template('60Gi'), action: 'blocked' }])]), 'the template changed in Git (now 60Gi, was 100Gi)'],
    ['keeps it when Git holds the same size spelled otherwise', report([sts('failed', [template('102400Mi')])]), undefined],
    ['keeps it when the StatefulSet was not started (the invocation ran short)', report([sts('not-started', [])], { outcome: 'incomplete' }), undefined],
    ['keeps it when the StatefulSet is in Git but missing from the cluster', report([sts('missing-in-cluster', [])]), undefined],
    ['keeps it when the pass was incomplete and the set is absent', report([], { outcome: 'incomplete' }), undefined],
    ['keeps it when a manifest could not be read (the set may be in it)', report([], { manifestErrors: [manifestError] }), undefined],
    ['closes it when a complete, clean pass no longer has the StatefulSet', report([]), 'analytics/wh1/data is no longer in Git'],
    ['closes it when the evaluated StatefulSet no longer has the template', report([sts('converged', [])]), 'analytics/wh1/data is no longer in Git'],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => assert.equal(sizeRecovery.resolution(input, proposal), expected));
  }
});

describe('recovery pull requests when the invocation runs short of time', () => {
  it('leaves every proposal and the closing round for the next pass, without a GitHub call', async () => {
    const gh = await startGitHubSandbox({ seedDir: fileURLToPath(new URL('../../../examples/gitops-repo', import.meta.url)) });
    try {
      const failed = template('100Gi');
      failed.pvcs = [{ name: 'data-wh1-0', ordinal: 0, state: 'failed', request: '100Gi', capacity: '10Gi', message: 'exceeds maximum allowed 53687091200', terminal: true, since: undefined }];
      gh.requestLog.reset();
      const result = await manageRecoveryPullRequests({
        ...reviewPorts(gh), branch: 'main',
        target: { name: 'demo', globs: ['k8s/**/*.yaml'], defaultNamespace: 'default', allowedNamespaces: ['analytics'], stateNamespace: 'sts-volume-gitops' },
        report: report([sts('failed', [failed])]), open: [], hasTime: () => false,
      });
      assert.deepEqual(result.deferred, ['recovery of analytics/wh1/data', 'closing recovery pull requests that are no longer needed']);
      assert.deepEqual(result.outcomes, []);
      assert.deepEqual(gh.requestLog.entries, []);
    } finally {
      await gh.close();
    }
  });
});

describe('resolution of a class recovery pull request (KEP-3751)', () => {
  const classProposal: ProposalMark = { identity: { kind: 'class-recovery', ...ref }, values: { from: 'extreme', to: 'gold' } };
  const withClass = (desiredClass: string, finished = false): TemplateReport => ({ ...template('100Gi', finished), desiredClass });
  it('is kept open while Git still asks for the refused class and the replicas are not there', () => {
    assert.equal(classRecovery.resolution(report([sts('failed', [withClass('extreme')])]), classProposal), undefined);
  });
  it('is kept while another class Git now names is being applied (updated in place should it be refused too)', () => {
    assert.equal(classRecovery.resolution(report([sts('in-progress', [withClass('gold')])]), classProposal), undefined);
  });
  it('is closed once Git names another class that is reached or blocked, or the modification completed, never on the size rules', () => {
    assert.equal(classRecovery.resolution(report([sts('converged', [withClass('gold', true)])]), classProposal), 'the class changed in Git (now gold, was extreme)');
    assert.equal(classRecovery.resolution(report([sts('blocked', [{ ...withClass('gold'), action: 'blocked' }])]), classProposal), 'the class changed in Git (now gold, was extreme)');
    assert.equal(classRecovery.resolution(report([sts('converged', [withClass('extreme', true)])]), classProposal), 'the modification to extreme completed');
  });
  it('is closed when the template is no longer in Git after a complete clean pass', () => {
    assert.equal(classRecovery.resolution(report([]), classProposal), 'analytics/wh1/data is no longer in Git');
  });
});
