// `npm start`: the whole story on the embedded sandboxes, seeded from examples/. Passes run (advancing the simulated
// cluster between them) and print a timeline: the plan with what it costs, a pull request that shrinks a volume and is
// blocked on its check (README's first example), template updates, PVC patches, per-replica progress (each pass says
// what changed in it), the terminal failure and its recovery pull request, a reviewer's pull request with its check run
// (title, summary, annotations on the storage line, cost) and comments as GitHub shows them, a size with a zero too
// many that a guardrail holds back, a performance class (VolumeAttributesClass) the driver cannot reach and its
// recovery pull request, a size that lives in a Helm chart's values file (a size source) going through the same
// check, merge and resize, and then, with usage from the sandbox's Prometheus turned on, a filling volume's growth pull
// request and an autoscaler's size written back to Git (demo-usage-stories.ts). The tool runs as the sandbox's GitHub
// App, as README sets one up, so its verdicts are check runs; the pull requests are checked as the webhook checks them
// (a validation of that pull request alone).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { parseConfig, type Config, type TargetConfig } from '../domain/config.ts';
import { checkTarget } from '../check/check-target.ts';
import { defaultRbacGroup, rbacObjects } from '../app/rbac-manifest.ts';
import { proposalOutcomes, runTargets, type TargetRun } from '../app/run-targets.ts';
import { renderCheckReport } from './render-check.ts';
import { parseTemplateKey } from '../proposals/lifecycle/identity.ts';
import { renderPassReport } from './render-report.ts';
import { describePrices, examplePrices, exampleSizeSources, generateRecordKey, sandboxConfig, sandboxGrowth } from './sandbox-config.ts';
import { growthStory, writeBackStory } from './demo-usage-stories.ts';
import { exampleSeedTarget } from './sandbox-seed.ts';
import { createGitHubClient } from '../adapters/github/octokit.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { withTemporaryFolder } from './temporary-folder.ts';
import { failureText, writeErr, writeOut } from './terminal.ts';
import { checkRunsByCommit, checkRunView, indent, latestCheckRun, rendered } from './demo-views.ts';
import { validateContext } from '../feedback/check-names.ts';
import { count } from '../domain/spelling.ts';
import { outcomeWords, pvcWords } from '../feedback/glossary.ts';
import type { PassReport, TemplateReport } from '../engine/report/pass-report.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const ticksBetweenPasses = 2;
/** The demo steps the sandbox's controllers between passes, and its GitHub has no secondary rate limits: no waiting. */
const sandboxTiming = { maxWaitMs: 0, pollIntervalMs: 0, sleep: (): Promise<void> => Promise.resolve(), spaceGitHubWrites: false };
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const demoUser = 'sts-volume-gitops-demo';
const validateName = validateContext('demo');

type Print = (text: string) => void;

interface Demo {
  kube: KubeSandbox;
  github: GitHubSandbox;
  config: Config;
  env: Record<string, string>;
  print: Print;
  passNumber: number;
  /** Each StatefulSet's state after the last pass (`namespace/name` to its line): a pass line says what changed. */
  lastSeen: Map<string, string>;
}

/** `sts-volume-gitops demo`: no flags but --help. */
export async function demoCommand(args: readonly string[]): Promise<number> {
  const line = readCommandLine(commandTable.demo, args);
  return typeof line === 'number' ? line : runDemo();
}

/** The story, in a temporary folder removed at the end and on Ctrl-C (it holds the record key and the repository). */
export async function runDemo(print: Print = (t) => writeOut(`${t}\n`)): Promise<number> {
  return withTemporaryFolder('sts-volume-gitops-demo-', (workDir) => runDemoIn(workDir, print));
}

async function runDemoIn(workDir: string, print: Print): Promise<number> {
  const kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(workDir, 'kube') });
  const github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), owner: 'acme', repo: 'platform-gitops', workDir: join(workDir, 'github') });
  try {
    const configPath = join(workDir, 'config.yaml');
    // The tool runs as it would on a real cluster: a user in the group its RBAC manifest binds, with only those grants.
    const identity = await kube.addIdentity({ name: demoUser, groups: [defaultRbacGroup] });
    // The deployment's record key is generated for the demo; the Lease and records live in their own namespace, which
    // the RBAC manifest creates.
    // It reaches GitHub as the sandbox's App (README's permissions), so its verdicts are check runs with annotations.
    const configText = (prometheusUrl?: string): string => sandboxConfig(identity.kubeconfigPath, github.url, 'DEMO_GITHUB_TOKEN', exampleSizeSources, {
      recordKey: { env: 'DEMO_RECORD_KEY' }, stateNamespace: undefined,
      app: { appId: github.app.appId, installationId: github.app.installationId, privateKey: { env: 'DEMO_APP_KEY' } }, prices: examplePrices,
      ...(exampleSeedTarget.guardrails ? { guardrails: exampleSeedTarget.guardrails } : {}), ...(prometheusUrl ? { prometheusUrl } : {}),
    });
    await writeFile(configPath, configText());
    const env = { DEMO_APP_KEY: github.app.privateKeyPem, DEMO_RECORD_KEY: generateRecordKey() };
    const demo: Demo = { kube, github, config: parseConfig(configText(), configPath, workDir), env, print, passNumber: 0, lastSeen: new Map() };
    const rbac = rbacObjects(demo.config.targets);
    await applyObjects(kube, rbac);

    heading(print, 'sts-volume-gitops: the demo (npm start)');
    print(`Kubernetes sandbox  ${kube.url}  (kubeconfig ${kube.kubeconfigPath})`);
    print(`GitHub sandbox      ${github.url}/repos/${github.owner}/${github.repo}`);
    print(`Configuration       ${configPath}`);
    print(`Runs as             User "${demoUser}" in group ${defaultRbacGroup}, granted only \`npx sts-volume-gitops rbac\`'s ${rbac.length} objects (kubeconfig ${identity.kubeconfigPath})`);
    print(`On GitHub as        App ${github.app.slug} (installation ${github.app.installationId}): verdicts are check runs`);
    print(`Prices              ${describePrices(examplePrices)}`);
    print(`Guardrails          ${guardrailsLine(exampleSeedTarget.guardrails)}`);

    heading(print, '0. Before the first pass: what check finds (read-only)');
    const checked = await checkTarget(demo.config.targets[0] as TargetConfig, { env: demo.env });
    print(renderCheckReport({ targets: [checked], webhook: [] }).trimEnd());

    heading(print, '1. What Git asks for, against what runs (read-only plan)');
    const [plan] = await runTargets(demo.config, { mode: 'plan', holderIdentity: 'demo', env: demo.env, timing: sandboxTiming });
    if (plan?.report) print(renderPassReport(plan.report, { proposals: proposalOutcomes(plan) }));

    heading(print, '2. A pull request that shrinks a volume: blocked on its check, before anyone merges it');
    await shrinkStory(demo);

    heading(print, '3. Reconcile passes until the cluster converges');
    let run = await passUntil(demo, (r) => r.report?.statefulSets.every((s) => s.outcome === 'converged' || s.outcome === 'failed' || s.outcome === 'blocked') === true
      && (r.recovery?.outcomes.some((o) => o.action === 'opened' || o.action === 'unchanged') ?? false));
    if (run.report) print(renderPassReport(run.report, { proposals: proposalOutcomes(run) }));

    heading(print, '4. The resize the driver cannot satisfy, and its recovery pull request');
    const recovery = run.recovery?.outcomes.find((o) => o.pullRequestUrl !== undefined);
    const recoveryPr = github.state.pulls.find((p) => p.state === 'open' && p.number === recovery?.pullRequest);
    if (recovery && recoveryPr) {
      await showAndMerge(demo, recovery, recoveryPr);
      run = await passUntil(demo, (r) => r.report?.statefulSets.every((s) => s.outcome === 'converged') === true);
      printChecks(demo, 'sts-volume-gitops/demo/analytics/clickhouse');
    } else {
      print('(no recovery pull request was opened)');
    }

    heading(print, '5. A reviewer\'s pull request: checked before merge, followed after merge');
    const current = await github.readFile('main', 'k8s/db/pg.yaml') ?? '';
    await github.commitFiles({ branch: 'grow-pg-30', message: 'Grow pg data to 30Gi', files: { 'k8s/db/pg.yaml': edited(current, 'storage: 20Gi', 'storage: 30Gi') } });
    const pr = await github.openPullRequest({ head: 'grow-pg-30', title: 'Grow pg data volumes to 30Gi' });
    print(`Opened pull request #${pr} (k8s/db/pg.yaml: storage 20Gi -> 30Gi)`);
    run = await pass(demo);
    printCheckRun(demo, run.feedback?.checks.find((c) => c.number === pr)?.headSha);
    print(`\nThe plan comment on #${pr} holds the same table, and is updated on every push.`);
    print(`\nMerging #${pr}...`);
    await github.mergePullRequest(pr);
    run = await passUntil(demo, (r) => r.feedback?.progress.some((p) => p.statefulSet === 'db/pg' && p.state === 'success') === true);
    printChecks(demo, 'sts-volume-gitops/demo/db/pg');
    const progress = run.feedback?.progress.find((p) => p.statefulSet === 'db/pg');
    print('\nProgress comment on the merged pull request, as a reviewer reads it:\n');
    print(rendered(progress?.markdown ?? ''));

    heading(print, '6. A zero too many: a guardrail holds the pull request back');
    await guardrailStory(demo);

    heading(print, '7. A performance class the driver cannot reach, and its recovery pull request');
    await infeasibleClassStory(demo);

    heading(print, '8. A size in a Helm chart\'s values file (Argo CD or Flux renders the StatefulSet)');
    await chartValuesStory(demo);

    // Usage and growth are turned on here, not from the start, so the stories above stay about what Git asks for.
    heading(print, '9. A volume filling up: the tool\'s growth pull request, priced, merged and resized');
    await writeFile(configPath, configText(kube.prometheus.url));
    demo.config = parseConfig(configText(kube.prometheus.url), configPath, workDir);
    print(`The target turns on usage from the sandbox's Prometheus (${kube.prometheus.url}) and growth: ${sandboxGrowth}`);
    const usageHost = { kube, github, print, pass: () => pass(demo), passUntil: (done: (r: TargetRun) => boolean) => passUntil(demo, done) };
    await growthStory(usageHost);

    heading(print, '10. A volume grown outside Git (by an autoscaler): the write-back pull request');
    await writeBackStory(usageHost);

    heading(print, '11. Converged: one more pass changes nothing');
    github.requestLog.reset();
    kube.requestLog.reset();
    run = await pass(demo);
    if (run.report) print(renderPassReport(run.report));
    print(`\nWrites in that pass: Kubernetes ${kube.requestLog.writes().length}, GitHub ${github.requestLog.writes().length}.`);
    return 0;
  } finally {
    await kube.close();
    await github.close();
  }
}

/**
 * A push that asks for a VolumeAttributesClass the driver cannot give the volumes: each modification ends Infeasible
 * (KEP-3751), and the recovery pull request proposes the class the volumes have; merged, the claims go back to it.
 */
async function infeasibleClassStory(demo: Demo): Promise<void> {
  const { github, print } = demo;
  const current = await github.readFile('main', 'k8s/db/pg.yaml') ?? '';
  await github.commitFiles({ branch: 'main', message: 'pg data volumes: extreme performance class', files: { 'k8s/db/pg.yaml': edited(current, 'volumeAttributesClassName: gold', 'volumeAttributesClassName: extreme') } });
  print('Pushed to main: k8s/db/pg.yaml volumeAttributesClassName gold -> extreme (io2 at 100,000 IOPS: the driver cannot change a volume\'s type)');
  const run = await passUntil(demo, (r) => r.recovery?.outcomes.some((o) => o.kind === 'class-recovery' && o.pullRequestUrl !== undefined) === true);
  if (run.report) print(renderPassReport({ ...run.report, statefulSets: run.report.statefulSets.filter((s) => s.name === 'pg') }, { proposals: proposalOutcomes(run).filter((o) => parseTemplateKey(o.key)?.statefulSet === 'pg') }));
  const recovery = run.recovery?.outcomes.find((o) => o.kind === 'class-recovery');
  const pr = github.state.pulls.find((p) => p.state === 'open' && p.number === recovery?.pullRequest);
  if (!recovery || !pr) return print('(no recovery pull request was opened)');
  print('');
  await showAndMerge(demo, recovery, pr);
  const converged = await passUntil(demo, (r) => r.report?.statefulSets.find((s) => s.name === 'pg')?.outcome === 'converged');
  const pvcs = converged.report?.statefulSets.find((s) => s.name === 'pg')?.templates[0]?.pvcs ?? [];
  print(`\nPVCs: ${pvcs.map((p) => `${p.name} ${p.capacity ?? '?'} in ${p.volumeAttributesClass?.current ?? 'no class'}`).join(', ')}`);
  printChecks(demo, 'sts-volume-gitops/demo/db/pg');
}

/** A PR that edits a chart's values file: the mapped value is checked, merged and resized like a manifest's size. */
async function chartValuesStory(demo: Demo): Promise<void> {
  const { github, print } = demo;
  const [mapping] = exampleSizeSources;
  if (!mapping) return;
  print(`sizeSources: ${mapping.file} ${mapping.path} -> ${mapping.statefulSet} template ${mapping.template}`);
  const values = await github.readFile('main', mapping.file) ?? '';
  await github.commitFiles({ branch: 'grow-vlogs-20', message: 'Grow victoria-logs to 20Gi', files: { [mapping.file]: edited(values, 'size: 10Gi', 'size: 20Gi') } });
  const pr = await github.openPullRequest({ head: 'grow-vlogs-20', title: 'Grow victoria-logs storage to 20Gi' });
  print(`Opened pull request #${pr} (${mapping.file}: ${mapping.path} 10Gi -> 20Gi)`);
  const run = await pass(demo);
  printCheckRun(demo, run.feedback?.checks.find((c) => c.number === pr)?.headSha);
  print(`\nMerging #${pr}...`);
  await github.mergePullRequest(pr);
  await passUntil(demo, (r) => r.feedback?.progress.some((p) => p.statefulSet === mapping.statefulSet && p.state === 'success') === true);
  printChecks(demo, `sts-volume-gitops/demo/${mapping.statefulSet}`);
  const pvcs = demo.kube.store.list(pvcType, 'analytics').filter((p) => p.metadata.name.startsWith(`${mapping.template}-`));
  print(`\nPVCs: ${pvcs.map((p) => `${p.metadata.name} ${String((p.status as { capacity?: { storage?: string } } | undefined)?.capacity?.storage)}`).join(', ')}`);
}

/**
 * README's first example: a pull request that asks for less than the volumes have. Kubernetes never shrinks a volume
 * (KEP-1790 lowers only a failed request, to above the capacity), so its check fails at the size's line before merge;
 * its author closes it.
 */
async function shrinkStory(demo: Demo): Promise<void> {
  const { github, print } = demo;
  const current = await github.readFile('main', 'k8s/db/pg.yaml') ?? '';
  await github.commitFiles({ branch: 'shrink-pg', message: 'Shrink pg data to 5Gi', files: { 'k8s/db/pg.yaml': edited(current, 'storage: 20Gi', 'storage: 5Gi') } });
  const pr = await github.openPullRequest({ head: 'shrink-pg', title: 'Shrink pg data volumes to 5Gi' });
  print(`Opened pull request #${pr} (k8s/db/pg.yaml: storage 20Gi -> 5Gi; the volumes have 10Gi)`);
  const headSha = await validate(demo, pr);
  printCheckRun(demo, headSha);
  await closePullRequest(demo, pr);
  print(`\nIts author closes #${pr}: nothing was written to the cluster for it.`);
}

/** A size with a zero too many (8Gi -> 80Gi): blocked on its pull request by the target's maxGrowthFactor. */
async function guardrailStory(demo: Demo): Promise<void> {
  const { github, print } = demo;
  const current = await github.readFile('main', 'k8s/cache/redis.yaml') ?? '';
  const typo = edited(current, 'storage: "8Gi"', 'storage: "80Gi"');
  await github.commitFiles({ branch: 'grow-redis', message: 'Grow redis data', files: { 'k8s/cache/redis.yaml': typo } });
  const pr = await github.openPullRequest({ head: 'grow-redis', title: 'Grow redis data volumes to 80Gi' });
  print(`Opened pull request #${pr} (k8s/cache/redis.yaml: data 8Gi -> 80Gi; 18Gi was meant)`);
  printCheckRun(demo, await validate(demo, pr));
  await closePullRequest(demo, pr);
  print(`\nIts author closes #${pr}: nothing was written to the cluster for it.`);
}

/** The pull request checked alone, as the webhook checks it on its own event: reads and dry runs, no cluster write. */
async function validate(demo: Demo, pr: number): Promise<string | undefined> {
  const [run] = await runTargets(demo.config, { mode: 'validate', pullRequest: pr, holderIdentity: 'demo', env: demo.env, timing: sandboxTiming, onEvent: (_target, line) => demo.print(`    ${line}`) });
  if (run?.error !== undefined) throw new Error(run.error);
  return run?.feedback?.checks.find((c) => c.number === pr)?.headSha;
}

/** Closed on GitHub by its author, through the REST API. */
async function closePullRequest(demo: Demo, pr: number): Promise<void> {
  const octokit = createGitHubClient({ baseUrl: demo.github.url, auth: { kind: 'token', token: demo.github.token }, spaceWrites: false });
  await octokit.rest.pulls.update({ owner: demo.github.owner, repo: demo.github.repo, pull_number: pr, state: 'closed' });
}

/** `text` with `from` replaced by `to`; a story whose edit finds nothing to change would tell something untrue. */
function edited(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the demo's edit found no ${JSON.stringify(from)} to change`);
  return text.replace(from, to);
}

function guardrailsLine(guardrails: Config['targets'][number]['guardrails']): string {
  const limits = [
    ...(guardrails?.maxGrowthFactor !== undefined ? [`at most ${guardrails.maxGrowthFactor}x growth in one change`] : []),
    ...(guardrails?.maxSize !== undefined ? [`at most ${String(guardrails.maxSize)}`] : []),
    ...(guardrails?.maxMonthlyIncrease !== undefined ? [`at most ${guardrails.maxMonthlyIncrease} a month more per change`] : []),
  ];
  return limits.length === 0 ? 'the defaults' : limits.join(', ');
}

/**
 * One StatefulSet's state, for telling what a pass changed: its outcome and each template's progress, with where the
 * volumes not done yet stand (`2 waiting for the node to expand the file system`).
 */
function setLine(sts: PassReport['statefulSets'][number]): string {
  const templates = sts.templates.map((t) => {
    const pending = new Map<string, number>();
    for (const pvc of t.pvcs.filter((p) => p.state !== 'done')) {
      const words = pvcWords(sts, t, pvc);
      pending.set(words, (pending.get(words) ?? 0) + 1);
    }
    const where = [...pending].map(([words, n]) => `${n} ${words}`).join(', ');
    return `${t.templateName} ${t.readyReplicas}/${t.replicas} done ${doneAt(t)}${where === '' ? '' : `: ${where}`}`;
  });
  return `${outcomeWords[sts.outcome]} (${templates.join('; ')})`;
}

/**
 * Where all the sets stand after a pass, in counts, then one line per set whose state moved in it (a set first seen
 * converged changed nothing), with its new state.
 */
function passLines(demo: Demo, report: PassReport | undefined): string[] {
  const changed: string[] = [];
  const tally = new Map<string, number>();
  for (const sts of report?.statefulSets ?? []) {
    const key = `${sts.namespace}/${sts.name}`;
    const line = setLine(sts);
    const before = demo.lastSeen.get(key);
    if (before !== line && !(before === undefined && sts.outcome === 'converged')) changed.push(`${key} ${line}`);
    demo.lastSeen.set(key, line);
    tally.set(outcomeWords[sts.outcome], (tally.get(outcomeWords[sts.outcome]) ?? 0) + 1);
  }
  const standing = [...tally].map(([words, n]) => `${n} ${words}`).join(', ');
  return [`pass ${demo.passNumber}: ${standing}${changed.length === 0 ? '; no set changed' : ''}`, ...changed.map((line) => `  ${line}`)];
}

async function pass(demo: Demo): Promise<TargetRun> {
  demo.passNumber += 1;
  const timeline: string[] = [];
  const [run] = await runTargets(demo.config, {
    mode: 'apply', holderIdentity: 'demo', env: demo.env,
    timing: sandboxTiming,
    onEvent: (_target, line) => timeline.push(line),
  });
  if (!run) throw new Error('the demo config has no target');
  if (run.error !== undefined) throw new Error(run.error);
  for (const line of passLines(demo, run.report)) demo.print(line);
  for (const line of timeline.filter((l) => !l.startsWith('plan at'))) demo.print(`    ${line}`);
  return run;
}

/** `at 20Gi`, or `in gold` for a class change alone (its size does not change). */
function doneAt(template: Pick<TemplateReport, 'change' | 'desiredSize' | 'desiredClass'>): string {
  return template.change === 'class' && template.desiredClass !== undefined ? `in ${template.desiredClass}` : `at ${template.desiredSize}`;
}

async function passUntil(demo: Demo, done: (run: TargetRun) => boolean, maxPasses = 25): Promise<TargetRun> {
  for (let i = 0; i < maxPasses; i++) {
    const run = await pass(demo);
    if (done(run)) return run;
    demo.kube.tick(ticksBetweenPasses);
  }
  throw new Error(`the demo did not reach the expected state within ${maxPasses} passes`);
}

/** A recovery pull request as a reviewer sees it (title, branch, body, the one-line change, its check run), then merged. */
async function showAndMerge(demo: Demo, recovery: { title?: string; body?: string; diff?: string }, pr: { number: number; head: string; headSha: string }): Promise<void> {
  const { github, print } = demo;
  print(`Pull request #${pr.number}: ${recovery.title ?? ''}`);
  print(`Branch: ${pr.head}\n`);
  print(rendered(recovery.body ?? ''));
  print('\nThe change (one line):');
  print(indent(recovery.diff ?? ''));
  printCheckRun(demo, pr.headSha);
  print(`\nMerging #${pr.number}...`);
  await github.mergePullRequest(pr.number);
}

/** The pull request check run on `sha` as its page on GitHub shows it. */
function printCheckRun(demo: Demo, sha: string | undefined): void {
  const run = sha === undefined ? undefined : latestCheckRun(demo.github, validateName, sha);
  demo.print(run ? `\nIts check run, as a reviewer sees it on GitHub:\n\n${indent(checkRunView(run), 2)}` : `\n(no check run ${validateName} on ${sha ?? '?'})`);
}

/** The progress check runs of one StatefulSet, commit by commit (each updated in place as the resize goes on). */
function printChecks(demo: Demo, name: string): void {
  const lines = checkRunsByCommit(demo.github, name);
  demo.print(`\nCheck runs ${name} (${count(lines.length, 'commit')}):`);
  for (const line of lines) demo.print(line);
}

function heading(print: Print, text: string): void {
  print(`\n=== ${text} ===\n`);
}

if (import.meta.main) {
  runDemo().then((code) => { process.exitCode = code; }, (error: unknown) => {
    writeErr(failureText(error));
    process.exitCode = 1;
  });
}
