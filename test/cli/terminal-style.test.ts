// Issue 37, item 11: the CLI's text on a terminal is short lines (the first clause, wrapped to its width; --verbose
// for every detail), coloured only on a terminal and never with NO_COLOR; --quiet prints what went wrong alone; a
// check result the identity can never clear is info, not a warning; a blocked shrink shows no cost of +0.00, and a set
// the pass could not read shows no `? replicas` or `0/0 done`. Pure: the renderers over plain reports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderCheckReport } from '../../functions/cli/render-check.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { firstClause, fitLine, plainStyle, terminalStyle } from '../../functions/cli/terminal-style.ts';
import type { PassReport, StatefulSetReport, TemplateReport } from '../../functions/engine/report/pass-report.ts';

const tty = { isTTY: true, columns: 100 };
const ansi = new RegExp(`${String.fromCharCode(27)}\\[`);

describe('terminal style', () => {
  it('short, wrapped and coloured on a terminal; plain and whole on a pipe; no colour with NO_COLOR; whole with --verbose', () => {
    assert.deepEqual(terminalStyle(tty, {}), { colour: true, width: 100, short: true });
    assert.deepEqual(terminalStyle(tty, { NO_COLOR: '1' }), { colour: false, width: 100, short: true });
    assert.deepEqual(terminalStyle({ isTTY: false }, {}), plainStyle);
    assert.deepEqual(terminalStyle({}, { FORCE_COLOR: '1' }), { colour: true, width: undefined, short: false });
    assert.deepEqual(terminalStyle(tty, {}, { verbose: true }), { colour: true, width: 100, short: false });
  });

  it('cuts a message to its first clause and wraps it under itself', () => {
    assert.equal(firstClause('5Gi is not above the current capacity of data-pg-0 (10Gi); a request can only be lowered (KEP-1790)'),
      '5Gi is not above the current capacity of data-pg-0 (10Gi) …');
    const style = { colour: false, width: 60, short: true };
    const lines = fitLine(`        blocked: ${'word '.repeat(40)}end; and the rest`, style);
    assert.ok(lines.every((line) => line.length <= 60), lines.join('\n'));
    assert.ok(lines.slice(1).every((line) => line.startsWith(' '.repeat(12))), 'continuations sit deeper than the line');
    assert.doesNotMatch(lines.join(' '), /and the rest/);
    assert.deepEqual(fitLine('short line', style), ['short line']);
  });
});

const longMessage = `cannot tell who besides the tool may write ConfigMaps or Leases in sts-volume-gitops (recreation records and the Lease): ${'this identity may not list roles, '.repeat(6)}and so on`;

describe('check on a terminal', () => {
  const report = {
    targets: [{
      target: 'demo', results: [
        { id: 'config', level: 'ok' as const, subject: 'configuration', message: `valid; ${'a detail, '.repeat(20)}` },
        { id: 'cluster.state-writers', level: 'info' as const, subject: 'sts-volume-gitops', message: longMessage, fix: 'run check as an administrator' },
        { id: 'cluster.access', level: 'error' as const, subject: 'db', message: 'patch persistentvolumeclaims is refused', fix: 'grant it' },
      ],
    }],
    webhook: [],
  };

  it('keeps every line within the width, says lines were cut, and counts info apart', () => {
    const text = renderCheckReport(report, { style: { colour: false, width: 100, short: true } });
    assert.ok(text.split('\n').every((line) => line.length <= 100), text);
    assert.match(text, /^ {2}info {4}cluster\.state-writers/m);
    assert.match(text, /1 error, 0 warnings, 1 ok, 1 info \(lines cut short: --verbose or --json for every detail\)\n$/);
    assert.doesNotMatch(renderCheckReport(report), /lines cut short/, 'piped: every line whole');
    assert.ok(renderCheckReport(report).includes(longMessage));
  });

  it('colours the levels only when the style has colour', () => {
    assert.match(renderCheckReport(report, { style: { colour: true, width: 100, short: true } }), ansi);
    assert.doesNotMatch(renderCheckReport(report, { style: { colour: false, width: 100, short: true } }), ansi);
  });

  it('--quiet prints the errors alone, and the count', () => {
    const text = renderCheckReport(report, { quiet: true });
    assert.deepEqual(text.split('\n').filter((l) => /^ {2}\w/.test(l)).map((l) => l.trim().split(/\s+/)[0]), ['error']);
    assert.match(text, /^target demo$/m);
    assert.match(text, /1 error, 0 warnings, 1 ok, 1 info\n$/);
  });
});

function template(overrides: Partial<TemplateReport>): TemplateReport {
  return {
    templateName: 'data', action: 'resize', from: '10Gi', desiredSize: '20Gi', replicas: 3, readyReplicas: 0, finished: false,
    storageClassName: 'standard', storageClassExpandable: true, reasons: [], pvcs: [], storageLocation: { path: 'k8s/db/pg.yaml', line: 33, column: 22 },
    quota: [], failureEvents: [], ...overrides,
  } as TemplateReport;
}

function planOf(statefulSets: StatefulSetReport[]): PassReport {
  return { target: 'demo', mode: 'plan', commitSha: 'a'.repeat(40), manifestErrors: [], notes: [], outcome: 'ok', statefulSets };
}

describe('plan lines', () => {
  const shrink: StatefulSetReport = {
    namespace: 'db', name: 'pg', outcome: 'blocked', podManagementPolicy: 'OrderedReady', replicas: 3, templateUpdate: undefined, notes: [],
    templates: [template({
      action: 'blocked', desiredSize: '5Gi', reasons: ['5Gi is not above the current capacity of data-pg-0 (10Gi); a request can only be lowered (KEP-1790)'],
      cost: { storageClassName: 'standard', growth: '0Gi', currency: 'USD', pricePerGiBMonth: 0.1, monthlyIncrease: 0 },
    })],
  };
  const unread: StatefulSetReport = {
    namespace: 'analytics', name: 'ch', outcome: 'namespace-not-allowed', podManagementPolicy: 'OrderedReady', replicas: undefined, templateUpdate: undefined, notes: [],
    templates: [template({ action: 'blocked', from: undefined, desiredSize: '100Gi', replicas: 0, reasons: ['namespace analytics is not in this target\'s allowlist'] })],
  };
  const growing: StatefulSetReport = {
    namespace: 'cache', name: 'redis', outcome: 'in-progress', podManagementPolicy: 'Parallel', replicas: 2, templateUpdate: undefined, notes: [],
    templates: [template({ replicas: 2 })],
  };

  it('shows no cost for a blocked shrink, and no replica count or done count for a set it could not read', () => {
    const text = renderPassReport(planOf([shrink, unread]));
    assert.doesNotMatch(text, /cost: \+0\.00/);
    assert.match(text, /x analytics\/ch \(OrderedReady\): blocked \(namespace not allowed\)\n {6}data: 100Gi \[standard\] {2}\(k8s\/db\/pg\.yaml:33\)/);
    assert.doesNotMatch(text, /\? replicas|0\/0 done/);
  });

  it('--quiet shows only the sets that need a person, and nothing at all when none does', () => {
    const text = renderPassReport(planOf([growing, shrink]), { quiet: true });
    assert.match(text, /x db\/pg/);
    assert.doesNotMatch(text, /cache\/redis|converged,/);
    assert.equal(renderPassReport(planOf([growing]), { quiet: true }), '');
  });
});
