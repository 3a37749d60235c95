import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatefulSetReport, TemplateReport } from '../../functions/engine/run-pass.ts';
import { codeBlock, escapeMarkdown, fitDescription } from '../../functions/feedback/escape-markdown.ts';
import { fitComment, renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { progressDescription, renderProgressComment } from '../../functions/feedback/render-progress.ts';

function template(overrides: Partial<TemplateReport> = {}): TemplateReport {
  return {
    templateName: 'data', desiredSize: '20Gi', commitSha: 'a'.repeat(40), replicas: 3, readyReplicas: 1, action: 'resize', from: '10Gi',
    storageClassName: 'standard', storageClassExpandable: true, finished: false, justFinished: false, reasons: [], pvcs: [],
    storageLocation: { path: 'k8s/pg.yaml', line: 29, column: 22 }, quota: [], failureEvents: [], ...overrides,
  };
}

function sts(overrides: Partial<StatefulSetReport> = {}): StatefulSetReport {
  return { namespace: 'db', name: 'pg', outcome: 'in-progress', podManagementPolicy: 'OrderedReady', replicas: 3, templateUpdate: undefined, templates: [template()], notes: [], ...overrides };
}

describe('escapeMarkdown keeps cluster text inert', () => {
  const hostile = [
    ['@octocat please look', /@&#8203;octocat/],
    ['<img src=x onerror=alert(1)>', /&lt;img src=x onerror=alert\\\(1\\\)&gt;/],
    ['[click](https://evil.example)', /\\\[click\\\]\\\(https:&#8203;\/\/evil\.example\\\)/],
    // GitHub finds issue references in the rendered text, where `\#12` is `#12`: a zero-width space breaks it.
    ['closes #12', /closes \\#&#8203;12/],
    ['a | b', /a \\\| b/],
    ['**bold** _it_ `code`', /\\\*\\\*bold\\\*\\\* \\_it\\_ \\`code\\`/],
  ] as const;
  for (const [input, expected] of hostile) {
    it(`neutralises ${JSON.stringify(input)}`, () => {
      assert.match(escapeMarkdown(input), expected);
      assert.doesNotMatch(escapeMarkdown(input), /\n/);
    });
  }

  it('quotes driver messages in a fence they cannot close', () => {
    const block = codeBlock('error ``` injected\n```');
    assert.ok(block.startsWith('````text\n'));
    assert.ok(block.endsWith('\n````'));
  });

  it('fits status descriptions into 140 characters with an ellipsis', () => {
    assert.equal(fitDescription('x'.repeat(200)).length, 140);
    assert.ok(fitDescription('x'.repeat(200)).endsWith('…'));
    assert.equal(fitDescription('short   text'), 'short text');
  });
});

describe('plan and progress rendering', () => {
  const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };

  it('summarises a growing PR in the status and links blocked items to their line', () => {
    const ok = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: [sts({ templates: [template({ pvcs: [1, 2, 3].map((i) => ({ name: `data-pg-${i}`, ordinal: i, state: 'to-patch' as const, request: '10Gi', capacity: '10Gi', message: undefined, terminal: false, since: undefined })) })] })], errors: [] });
    assert.deepEqual([ok.state, ok.description], ['success', 'db/pg: 3 PVCs grow 10Gi → 20Gi']);
    const blocked = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: [sts({ templates: [template({ action: 'blocked', reasons: ['StorageClass @fixed does not allow volume expansion'] })] })], errors: [] });
    assert.equal(blocked.state, 'failure');
    assert.match(blocked.markdown, /\(https:\/\/github\.com\/acme\/gitops\/blob\/b{40}\/k8s\/pg\.yaml#L29\)/);
    assert.match(blocked.markdown, /StorageClass @&#8203;fixed/);
  });

  it('reports parse errors with file and line as a failure', () => {
    const result = renderPlanComment({ target: 'prod', headSha: 'c'.repeat(40), links, statefulSets: [], errors: [{ path: 'k8s/x.yaml', line: 3, column: 1, message: 'YAML syntax error: bad indentation' }] });
    assert.equal(result.state, 'failure');
    assert.equal(result.description, 'k8s/x.yaml:3: YAML syntax error: bad indentation');
  });

  it('says "no volume changes" when the PR touches manifests without resizing', () => {
    const result = renderPlanComment({ target: 'prod', headSha: 'c'.repeat(40), links, statefulSets: [sts({ templates: [template({ action: 'unchanged', from: '20Gi', finished: true, readyReplicas: 3 })] })], errors: [] });
    assert.deepEqual([result.state, result.description], ['success', 'no volume changes']);
  });

  it('words progress as GitHub statuses show it', () => {
    assert.equal(progressDescription(sts()), 'resizing: 1/3 replicas at 20Gi');
    assert.equal(progressDescription(sts({ outcome: 'converged', templates: [template({ readyReplicas: 3, finished: true })] })), '3/3 replicas at 20Gi');
    assert.match(progressDescription(sts({ outcome: 'failed', templates: [template({ pvcs: [{ name: 'data-pg-0', ordinal: 0, state: 'failed', request: '20Gi', capacity: '10Gi', message: 'exceeds maximum', terminal: true, since: '2026-11-23T10:00:00Z' }] })] })), /^data: exceeds maximum$/);
  });

  it('links the recovery pull request in the progress comment', () => {
    const result = renderProgressComment({ target: 'prod', sts: sts(), commitSha: 'd'.repeat(40), recoveryLinks: new Map([['db/pg/data', 'https://github.com/acme/gitops/pull/9']]) });
    assert.match(result.markdown, /recovery pull request proposes a size that can succeed: https:\/\/github\.com\/acme\/gitops\/pull\/9/);
  });

  it('summarises instead of exceeding GitHub\'s comment size limit', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `| row ${i} | ${'x'.repeat(30)} |`);
    const text = fitComment(lines);
    assert.ok(text.length <= 65_536);
    assert.match(text, /more lines were left out to stay within GitHub's comment size limit/);
  });
});
