// One voice (issue 30 item 9): every renderer writes the glossary's words in the house style (functions/feedback/
// glossary.ts, functions/domain/spelling.ts). A plan, a pass, a pull request's comment and check, a progress comment, a
// recovery body and check's lines are rendered from the same worlds, and each text is held to the rules: one arrow per
// medium, counts in the right number, `a month`, grouped amounts, no word the glossary rules out, no code names.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clusterPermissions, leasePermissions, previousLeaseNamespacePermissions, workloadPermissions } from '../../functions/adapters/kube/permissions.ts';
import { accessQuestions, judgeAccess } from '../../functions/check/cluster-access.ts';
import { ok, warning } from '../../functions/check/check-result.ts';
import { renderCheckReport } from '../../functions/cli/render-check.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { planTarget, type PlanOptions } from '../../functions/engine/plan/plan.ts';
import { costSummary, reportFromPlan, type PassReport, type StatefulSetReport } from '../../functions/engine/report/pass-report.ts';
import { glossary } from '../../functions/feedback/glossary.ts';
import { planAnnotations, planCheck } from '../../functions/feedback/render-check-run.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { renderProgressComment } from '../../functions/feedback/render-progress.ts';
import { composeBody } from '../../functions/proposals/body/compose-body.ts';
import { footerSection } from '../../functions/proposals/body/footer.ts';
import { sizeRecovery } from '../../functions/proposals/recovery/recovery-kinds.ts';
import { sizeRecoveryBody } from '../../functions/proposals/recovery/recovery-texts.ts';
import { desiredSet, desiredTemplate, livePvc, liveSet, pgWorld, quota, runningPod } from '../engine/builders.ts';

const options: PlanOptions = {
  allowedNamespaces: ['*'], prices: { currency: 'USD', perGiBMonth: { standard: 0.125 } }, guardrails: { maxSize: '4Ti', maxMonthlyIncrease: 500 },
};

/** db/pg grows 10Gi -> 20Gi (3 replicas), db/solo 10Gi -> 12Gi (1 replica), db/big asks for 2Pi past three limits and the quota. */
function planned(planOptions: PlanOptions = options): StatefulSetReport[] {
  const world = pgWorld();
  const db = world.namespaces.get('db');
  db?.quotas.push(quota('storage', { 'requests.storage': '10000Gi' }));
  for (const name of ['solo', 'big']) {
    const replicas = name === 'solo' ? 1 : 3;
    db?.statefulSets.push(liveSet({ name, replicas, uid: `uid-${name}` }));
    for (let i = 0; i < replicas; i++) {
      db?.pvcs.push(livePvc(`data-${name}-${i}`));
      db?.pods.push(runningPod(`${name}-${i}`, `${name}-rev1`));
    }
  }
  const sets = [
    desiredSet(),
    desiredSet({ name: 'solo', replicas: 1, templates: [desiredTemplate({ size: '12Gi' })] }),
    desiredSet({ name: 'big', templates: [desiredTemplate({ size: '2Pi' })] }),
  ];
  return planTarget(sets, world, planOptions).map((plan) => reportFromPlan(plan, 'c0ffee'));
}

/** db/pg's expansion to 100Gi failed for good at 20Gi (the driver's maximum is 50Gi). */
function failed(): StatefulSetReport {
  const stuck = { request: '100Gi', capacity: '20Gi', allocated: '100Gi', resizeStatus: 'ControllerResizeInfeasible' };
  const [report] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '100Gi' })] })], pgWorld({ 0: stuck, 1: stuck, 2: stuck }, { size: '100Gi' }), options)
    .map((plan) => reportFromPlan(plan, 'c0ffee'));
  assert.ok(report);
  return report;
}

/** db/pg's volumes at their driver's 50Gi maximum, asked for 60Gi: no size can succeed (issue 35). */
function atMaximum(): StatefulSetReport {
  const message = 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 64424509440 exceeds maximum allowed 53687091200';
  const stuck = {
    request: '60Gi', capacity: '50Gi', allocated: '60Gi', resizeStatus: 'ControllerResizeInfeasible',
    conditions: [{ type: 'ControllerResizeError', status: 'True', reason: undefined, message, lastTransitionTime: '2026-11-25T21:00:00Z' }],
  };
  const [report] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '60Gi' })] })], pgWorld({ 0: stuck, 1: stuck, 2: stuck }, { size: '60Gi' }), options)
    .map((plan) => reportFromPlan(plan, 'c0ffee'));
  assert.ok(report?.templates[0]?.atDriverMaximum);
  return report;
}

function passReport(mode: PassReport['mode'], statefulSets: StatefulSetReport[]): PassReport {
  const cost = costSummary(statefulSets);
  return { target: 'prod', mode, commitSha: 'c0ffee'.repeat(7), outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...(cost ? { cost } : {}) };
}

function terminalTexts(sets: () => StatefulSetReport[] = planned): string[] {
  const questions = accessQuestions({ name: 'prod', namespaces: { default: 'default', state: 'sts-volume-gitops', allow: ['db'] } });
  const access = judgeAccess(questions, questions.map((_, index) => ({ allowed: index % 2 === 0 })));
  return [
    renderPassReport(passReport('plan', sets())),
    renderPassReport(passReport('apply', [...sets(), failed(), atMaximum()]), { proposals: [
      { key: 'db/pg/data', kind: 'size-recovery', action: 'updated', pullRequest: 12, pullRequestUrl: 'https://github.com/acme/gitops/pull/12', change: { from: '100Gi', to: '50Gi' } },
      { key: 'db/pg/data', kind: 'class-recovery', action: 'impossible', pullRequestUrl: undefined, reason: 'the refused volumes are in fast, slow' },
    ] }),
    renderCheckReport({ targets: [{ target: 'prod', results: [ok('config', 'configuration', 'valid'), warning('cluster.state-writers', 'x', 'y'), ...access] }], webhook: [] }),
  ];
}

function gitHubTexts(planSets: () => StatefulSetReport[] = planned): string[] {
  const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };
  const sets = planSets();
  const plan = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: sets, errors: [] });
  const check = planCheck({ context: 'sts-volume-gitops/validate (prod)', plan, statefulSets: sets, errors: [] });
  const growing = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: sets.filter((s) => s.name !== 'big'), errors: [] });
  const failure = failed();
  const full = atMaximum();
  const progress = [failure, sets[0]!, full].map((sts) => renderProgressComment({ target: 'prod', sts, commitSha: 'c0ffee', recoveryLinks: new Map([['db/pg/data', 'https://github.com/acme/gitops/pull/9']]) }));
  const template = failure.templates[0]!;
  // The body as the lifecycle frames it, the change table and the footer included (the marker is a comment, not words).
  const recovery = composeBody(sizeRecoveryBody({
    sts: failure, template, failed: '100Gi',
    decision: { kind: 'propose', size: '50Gi', bytes: 50n * 2n ** 30n, rule: 'driver-maximum', explanation: 'the driver states a maximum of 50Gi' },
    prices: options.prices,
  }), {
    marker: '', footer: footerSection(sizeRecovery.reproposedWhen),
    edit: { path: 'k8s/db/pg.yaml', line: 20, field: 'storage', from: '100Gi', to: '50Gi', before: '', after: '' },
  });
  const backToVolumes = composeBody(sizeRecoveryBody({
    sts: full, template: full.templates[0]!, failed: '60Gi', prices: options.prices,
    decision: { kind: 'propose', size: '50Gi', bytes: 50n * 2n ** 30n, rule: 'at-driver-maximum', explanation: 'no size can succeed: the driver\'s maximum is 50Gi and the volumes have 50Gi' },
  }), {
    marker: '', footer: footerSection(sizeRecovery.reproposedWhen),
    edit: { path: 'k8s/db/pg.yaml', line: 20, field: 'storage', from: '60Gi', to: '50Gi', before: '', after: '' },
  });
  return [
    plan.markdown, plan.description, plan.headline, growing.markdown, growing.description, check.title,
    ...planAnnotations(sets, []).flatMap((a) => [a.title, a.message]),
    ...progress.flatMap((p) => [p.markdown, p.description, p.title]), recovery, backToVolumes,
  ];
}

/** `1 PVCs`, `1 replicas`, `1 errors`... */
const wrongSingular = /(?<![\d.,/])1 (PVC|replica|StatefulSet|template|error|warning|file|mapping|size source|target|message|item)s\b/;
const avoided = glossary.flatMap((entry) => entry.insteadOf ?? []);

function holdToHouseStyle(text: string, medium: 'github' | 'terminal'): void {
  const wrongArrow = medium === 'github' ? /->|-&gt;/ : /→/;
  assert.doesNotMatch(text, wrongArrow, `one arrow per medium (${medium}):\n${text}`);
  assert.doesNotMatch(text, /\(s\)|\(es\)/, `a count in the right number, not "(s)":\n${text}`);
  assert.doesNotMatch(text, wrongSingular, `one of a thing is singular:\n${text}`);
  assert.doesNotMatch(text, /\/month\b/, `money "a month", not "/month":\n${text}`);
  assert.doesNotMatch(text, /[+-]\d{4,}\.\d\d [A-Z]{3}\b/, `money with thousands grouped:\n${text}`);
  // A configured price is quoted as set (`0.125 USD per GiB-month`); every amount the tool computes reads one way.
  for (const amount of text.match(/[+-]?[\d,]+(?:\.\d+)? (?:USD|EUR)\b(?! per GiB-month)/g) ?? []) {
    assert.match(amount, /^[+-][\d,]+\.\d\d [A-Z]{3}$/, `money signed, with two decimals, one way everywhere (${amount}):\n${text}`);
  }
  assert.doesNotMatch(text, /(?<![\d,.])\d{4,}(Ki|Mi|Gi|Ti|Pi|Ei)\b/, `a computed size with thousands grouped:\n${text}`);
  for (const word of avoided) assert.doesNotMatch(text, new RegExp(`(?<![\\w-])${word}(?![\\w-])`), `the glossary rules out "${word}":\n${text}`);
  assert.doesNotMatch(text, /waiting-for-deletion|missing-in-cluster|namespace-not-allowed|updated-in-place/, `an outcome's words, not its code:\n${text}`);
}

describe('one voice across the renderers (issue 30 item 9)', () => {
  it('the terminal texts (plan, pass, check) keep the house style', () => {
    for (const text of terminalTexts()) holdToHouseStyle(text, 'terminal');
  });

  it('the GitHub texts (plan comment, check run, annotations, progress, recovery) keep the house style', () => {
    for (const text of gitHubTexts()) holdToHouseStyle(text, 'github');
  });

  it('spells a change under a cent as every other amount: two decimals (issue 35: "+0.0002 USD a month" beside "+0.00 USD")', () => {
    const cheap = (): StatefulSetReport[] => planned({ ...options, prices: { currency: 'USD', perGiBMonth: { standard: 0.00002 } } });
    for (const text of terminalTexts(cheap)) holdToHouseStyle(text, 'terminal');
    for (const text of gitHubTexts(cheap)) holdToHouseStyle(text, 'github');
    assert.match(renderPassReport(passReport('plan', cheap())), /will resize, \+0\.00 USD a month\n/);
  });

  it('formats numbers in one place: no other module of the tool formats an amount itself', () => {
    const root = fileURLToPath(new URL('../../functions/', import.meta.url));
    // A percent rounded in place (`${Math.round(share)}%`) counts too: spelling.ts's percent() says it once.
    const formatters = /\.toFixed\(|\.toLocaleString\(|\.toPrecision\(|Intl\.NumberFormat|Math\.round\([^)]*\)\}%/;
    // Numbers that are neither money nor a factor, each spelled in one place of its own.
    const ownSpelling = new Set([
      join('domain', 'spelling.ts'),
      join('domain', 'byte-count.ts'), // byte counts: 95 MiB (99,614,720 bytes)
      join('usage', 'prometheus-api.ts'), // a query's time parameter on the wire, not text
    ]);
    const elsewhere = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !ownSpelling.has(file))
      .filter((file) => formatters.test(readFileSync(join(root, file), 'utf8')));
    assert.deepEqual(elsewhere, [], 'format with domain/spelling.ts (formatMoney, factor, groupDigits, percent), so every text spells an amount one way');
  });

  it('a plan says what will change and how many replicas are done, and counts a single replica as one', () => {
    const text = renderPassReport(passReport('plan', planned()));
    assert.match(text, /~ db\/pg \(OrderedReady, 3 replicas\): will resize, \+3\.75 USD a month\n {6}data: 10Gi -> 20Gi \[standard\] 0\/3 done/);
    assert.match(text, /~ db\/solo \(OrderedReady, 1 replica\): will resize/);
    assert.match(text, /x db\/big \(OrderedReady, 3 replicas\): blocked/);
    assert.match(text, /\n {2}0 converged, 2 will change, 0 in progress, 1 blocked or failed, 0 stalled, 0 missing, 0 manifest errors\n/);
    assert.match(gitHubTexts()[4] ?? '', /^db\/pg: 3 PVCs grow 10Gi → 20Gi; db\/solo: 1 PVC grows 10Gi → 12Gi; \+4\.00 USD a month$/);
  });

  it('never says a blocked change\'s PVCs are to be patched: nothing is patched while it is blocked', () => {
    const sets = planned();
    const big = sets.find((s) => s.name === 'big');
    assert.ok(big && big.outcome === 'blocked' && big.templates[0]?.pvcs.every((p) => p.state === 'to-patch'), 'db/big is blocked, its PVCs behind the size');
    const plan = renderPassReport(passReport('plan', sets));
    const bigLines = plan.slice(plan.indexOf('x db/big'), plan.indexOf('\n  0 converged'));
    for (const ordinal of [0, 1, 2]) assert.match(bigLines, new RegExp(`\\n {8}data-big-${ordinal}: not patched while blocked \\(request 10Gi, capacity 10Gi\\)`));
    assert.doesNotMatch(bigLines, /to be patched/);
    assert.match(plan, /\n {8}data-pg-0: to be patched \(request 10Gi/, 'a change that is not blocked still has its PVCs to patch');
    // A set whose template update was refused while it was applied patched nothing either.
    const pg = sets.find((s) => s.name === 'pg');
    assert.ok(pg);
    const refused: StatefulSetReport = { ...pg, outcome: 'blocked', blockedBy: 'record-name-taken' };
    assert.doesNotMatch(renderPassReport(passReport('apply', [refused])), /to be patched/);
    const progress = renderProgressComment({ target: 'prod', sts: big, commitSha: 'c0ffee' }).markdown;
    assert.match(progress, /\| data-big-0 \| 10Gi \| 10Gi \| ⏸️ not patched while blocked \|/);
    assert.doesNotMatch(progress, /to be patched/);
  });

  it('groups the amounts of a quota that has no room, wherever its reason is shown', () => {
    const world = pgWorld();
    world.namespaces.get('db')?.quotas.push(quota('storage', { 'requests.storage': '10000Gi' }));
    const sets = planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Ti' })] })], world, { allowedNamespaces: ['*'], guardrails: { maxGrowthFactor: 100_000 } })
      .map((plan) => reportFromPlan(plan, 'c0ffee'));
    const text = renderPassReport(passReport('plan', sets));
    assert.match(text, /blocked: growing needs 61,410Gi more requests\.storage but ResourceQuota storage has 9,970Gi left \(used 30Gi of 10,000Gi/);
    holdToHouseStyle(text, 'terminal');
  });

  it('a failed set\'s check has its whole reason as the title, and its summary says what failed without repeating it', () => {
    const sts = failed();
    const progress = renderProgressComment({ target: 'prod', sts, commitSha: 'c0ffee' });
    const reason = sts.templates[0]?.pvcs[0]?.message ?? '';
    assert.ok(reason.length > 0);
    assert.equal(progress.title, `data: ${reason}`, 'the title is not cut');
    assert.match(progress.markdown, /\nDesired state from commit c0ffee\. data: the resize to 100Gi failed for good\.\n/);
    assert.ok(!progress.markdown.includes('…'), 'no cut text in the summary');
  });

  it('a blocked template\'s bullet, title and annotation name its set, template and location once', () => {
    // db/big is held back by three limits and the quota; db/pg, sized from a size source and its current size unknown,
    // by the largest size; db/solo asks for a template it does not have; db/owned is written by an operator.
    const world = pgWorld();
    const db = world.namespaces.get('db');
    assert.ok(db);
    db.pvcs.length = 0;
    db.statefulSets = db.statefulSets.map((set) => ({ ...set, templates: set.templates.map((t) => ({ ...t, storage: undefined })) }));
    const owner = { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', name: 'main', uid: 'uid-prom' };
    for (const [name, extra] of [['big', {}], ['solo', {}], ['owned', { controllerOwner: owner }]] as const) {
      db.statefulSets.push(liveSet({ name, uid: `uid-${name}`, ...extra }));
      for (let i = 0; i < 3; i++) db.pvcs.push(livePvc(`data-${name}-${i}`));
    }
    const sizeSource = { file: 'k8s/db/pg.yaml', path: 'primary.persistence.size', statefulSet: 'db/pg', template: 'data' };
    const sets = planTarget([
      desiredSet({ sizedBy: [sizeSource], templates: [desiredTemplate({ size: '5Ti' })] }),
      desiredSet({ name: 'big', templates: [desiredTemplate({ size: '2Pi' })] }),
      desiredSet({ name: 'solo', templates: [desiredTemplate({ name: 'logs' })] }),
      desiredSet({ name: 'owned' }),
    ], world, options).map((plan) => reportFromPlan(plan, 'c0ffee'));
    assert.deepEqual(sets.map((s) => s.templates[0]?.action), ['blocked', 'blocked', 'blocked', 'blocked']);
    const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };
    const comment = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: sets, errors: [] });
    // A name, not part of a path (`db/pg` in `k8s/db/pg.yaml` is the file's).
    const occurrences = (text: string, words: string): number => text.match(new RegExp(`(?<![\\w/.-])${words.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w.-])`, 'g'))?.length ?? 0;
    for (const sts of sets) {
      const template = sts.templates[0]?.templateName ?? '';
      const id = `${sts.namespace}/${sts.name}`;
      const bullet = comment.markdown.split('\n').filter((line, index, lines) => {
        const start = lines.findIndex((l) => l.startsWith(`- ❌ **${id}**`));
        return start >= 0 && index >= start && (index === start || /^ {2}- /.test(line)) && lines.slice(start + 1, index).every((l) => /^ {2}- /.test(l));
      }).join('\n');
      assert.ok(bullet.length > 0, `a bullet for ${id}:\n${comment.markdown}`);
      assert.equal(occurrences(bullet, id), 1, `the bullet names ${id} once:\n${bullet}`);
      // db/solo's list of templates is itself the reason (`added logs; removed data`): only there are names data.
      if (sts.name !== 'solo') assert.equal(occurrences(bullet, template), 1, `the bullet names template ${template} once:\n${bullet}`);
      assert.equal(occurrences(bullet, 'k8s/db/pg.yaml:30'), 1, `the bullet names the location once:\n${bullet}`);
      const annotation = planAnnotations([sts], [])[0];
      assert.equal(occurrences(`${annotation?.title ?? ''}\n${annotation?.message ?? ''}`, id), 1, `the annotation names ${id} once`);
      assert.doesNotMatch(annotation?.message ?? '', /k8s\/db\/pg\.yaml:30/, 'an annotation stands on its line');
    }
    const title = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: [sets[0]!], errors: [] }).headline;
    assert.match(title, /^db\/pg data: /);
    assert.equal(occurrences(title, 'db/pg'), 1, title);
  });

  it('says why a permission is needed in words, never by the code that needs it', () => {
    const rules = [...clusterPermissions, ...workloadPermissions, ...leasePermissions(['sts-volume-gitops-prod']), ...previousLeaseNamespacePermissions];
    for (const rule of rules) {
      for (const verb of rule.verbs) {
        const why = rule.why[verb] ?? '';
        assert.match(why, /^to [a-z]/, `${verb} ${rule.resource}: a reason for the verb, "to ..."`);
        assert.doesNotMatch(why, /\b[a-z]+[A-Z]\w*\(?/, `${verb} ${rule.resource}: no code name in "${why}"`);
      }
    }
  });
});
