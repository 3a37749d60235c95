// The Lambda as shipped: the bundle built by the stack's own esbuild definition, run in a separate plain Node 22
// process (no tsx) that plays the Lambda runtime, invoked with Scheduler events against both sandboxes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildLambdaBundle, lambdaBundle, type BuiltBundle } from '../../infra/lambda-bundle.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import type { HandlerResult } from '../../functions/lambda/handler.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

/** The deployment's record key (one for the whole file: its passes resume each other's records). */
const recordKeyEnv = sandboxRecordKeyEnv();

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const runtime = fileURLToPath(new URL('fixtures/lambda-runtime.js', import.meta.url));

type Outcome = { ok: true; body: string; roundTripEqual: boolean } | { ok: false; errorType: string; errorMessage: string };

interface Invocation {
  outcome: Outcome;
  code: number | null;
  /** Every output line that is JSON: Powertools log lines and EMF metric blobs. */
  lines: Array<Record<string, unknown>>;
  stderr: string;
}

describe('the Lambda bundle, built as the stack builds it, in its own Node 22 process', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let bundle: BuiltBundle;
  const token = 'TEST_GITHUB_TOKEN';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-lambda-bundle-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(kube.kubeconfigPath, github.url, token));
    // Outside the repository, so nothing can be resolved from the project's node_modules at run time.
    bundle = await buildLambdaBundle({ outdir: join(dir, 'asset'), configFile });
  });
  after(async () => {
    kube.stopTimer();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function invoke(event: unknown, options: { configFile?: string; timeoutMs?: number } = {}): Promise<Invocation> {
    const outcomeFile = join(dir, `outcome-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    const env = {
      PATH: process.env.PATH ?? '',
      // As the stack sets it, relative to where the asset is unpacked.
      STS_VOLUME_GITOPS_CONFIG: options.configFile ?? join(bundle.directory, lambdaBundle.configFileName),
      POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops',
      POWERTOOLS_METRICS_NAMESPACE: 'StsVolumeGitopsTest',
      [token]: github.token,
      ...recordKeyEnv,
    };
    // stdout and stderr into one file, in the order written (Powertools logs errors to stderr), as CloudWatch Logs sees them.
    const outputFile = `${outcomeFile}.log`;
    const output = await open(outputFile, 'w');
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [runtime, bundle.file, JSON.stringify(event), outcomeFile, String(options.timeoutMs ?? 300_000)],
        { env, cwd: bundle.directory, stdio: ['ignore', output.fd, output.fd] });
      child.on('error', reject);
      child.on('exit', (exitCode) => resolve(exitCode));
    });
    await output.close();
    const stdout = await readFile(outputFile, 'utf8');
    const stderr = stdout;
    const outcome = JSON.parse(await readFile(outcomeFile, 'utf8').catch(() => `{"ok":false,"errorType":"NoOutcome","errorMessage":${JSON.stringify(stderr)}}`)) as Outcome;
    const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    return { outcome, code, lines, stderr };
  }

  function emf(lines: Invocation['lines']): Array<Record<string, unknown> & { _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } }> {
    return lines.filter((l) => '_aws' in l) as never;
  }

  it('reconciles, opens a recovery pull request for the capped class, and returns a result that survives JSON', async () => {
    let last: HandlerResult | undefined;
    let invocations = 0;
    const totals = new Map<string, number>();
    kube.startTimer(20); // the garbage collector finishes orphan deletes while a pass waits, as on a real cluster
    try {
      for (; invocations < 12; invocations++) {
        const { outcome, code, stderr, lines } = await invoke({ source: 'schedule' });
        for (const blob of emf(lines)) {
          for (const metric of blob._aws.CloudWatchMetrics.flatMap((m) => m.Metrics)) {
            // A count published per proposal kind too is kept apart from its total.
            const name = typeof blob.kind === 'string' ? `${metric.Name}{kind=${blob.kind}}` : metric.Name;
            totals.set(name, (totals.get(name) ?? 0) + Number(blob[metric.Name]));
          }
        }
        assert.equal(code, 0, stderr);
        assert.ok(outcome.ok, JSON.stringify(outcome));
        assert.equal(outcome.roundTripEqual, true, 'JSON.parse(JSON.stringify(result)) deep-equals the result');
        last = JSON.parse(outcome.body) as HandlerResult;
        if (github.state.pulls.some((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/recover/'))) break;
        kube.tick(2);
      }
    } finally {
      kube.stopTimer();
    }
    const run = last?.runs[0];
    assert.equal(run?.error, undefined);
    assert.deepEqual(run?.report?.statefulSets.map((s) => s.name).sort(), ['clickhouse', 'pg', 'redis']);
    const opened = run?.recovery?.outcomes.find((o) => o.pullRequestUrl !== undefined);
    assert.ok(opened, `a recovery pull request within ${invocations + 1} invocations`);
    assert.equal(opened.decision?.kind, 'propose');
    assert.ok(opened.decision?.kind === 'propose' && typeof opened.decision.bytes === 'string' && /^\d+$/.test(opened.decision.bytes), 'bytes travel as a decimal string');
    assert.equal(run?.recovery?.links[opened.key], opened.pullRequestUrl, 'links travel as an object');
    assert.ok((run?.apiCalls.github ?? 0) > 0 && (run?.apiCalls.kubernetes ?? 0) > 0, 'API calls are counted at the clients');
    // What the passes did, as the metrics tell it: three StatefulSets recreated with four resized templates (redis has
    // two), PVCs patched, one recovery PR.
    assert.equal(totals.get('Passes'), invocations + 1);
    assert.equal(totals.get('Recreations'), 3);
    assert.equal(totals.get('ResizesApplied'), 4);
    assert.ok((totals.get('PvcPatches') ?? 0) >= 3, `PVC patches: ${totals.get('PvcPatches')}`);
    assert.equal(totals.get('ProposalPullRequestsOpened'), 1);
    assert.equal(totals.get('ProposalPullRequestsOpened{kind=size-recovery}'), 1);
    assert.equal(totals.get('TargetsFailed'), 0);
  });

  it('logs each pass and publishes its metrics as EMF on stdout, the failed resize counted and named', async () => {
    const { outcome, lines } = await invoke({ source: 'schedule', mode: 'plan' });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const summary = lines.find((l) => l.message === 'pass finished');
    assert.equal(summary?.target, 'demo');
    // clickhouse's expansion past its class's 50Gi failed for good in the passes above, and still is: the pass is failed.
    assert.equal(summary?.outcome, 'failed');
    assert.equal(summary?.level, 'ERROR');
    assert.match(String(summary?.function_request_id), /^req-\d+$/, 'the Lambda context is on every line');
    const needsAction = lines.filter((l) => l.message === 'needs action');
    assert.deepEqual(needsAction.map((l) => [l.target, l.subject, l.reason]), [['demo', 'analytics/clickhouse', 'expansion-failed']]);
    const blobs = emf(lines);
    const passes = blobs.find((b) => b._aws.CloudWatchMetrics[0]?.Metrics.some((m) => m.Name === 'Passes'));
    assert.equal(passes?.outcome, 'failed');
    assert.equal(passes?.Passes, 1);
    const byReason = blobs.find((b) => 'reason' in b);
    assert.deepEqual([byReason?.reason, byReason?.StatefulSetsFailed, byReason?._aws.CloudWatchMetrics[0]?.Dimensions], ['expansion-failed', 1, [['service', 'reason']]]);
    assert.equal(passes?._aws.CloudWatchMetrics[0]?.Namespace, 'StsVolumeGitopsTest');
    const counts = blobs.find((b) => 'KubernetesApiCalls' in b);
    assert.ok(counts, 'the counts are published');
    assert.equal(counts.service, 'sts-volume-gitops');
    assert.ok((counts.KubernetesApiCalls as number) > 0);
    assert.ok((counts.GitHubApiCalls as number) > 0);
    assert.equal(counts.PvcPatches, 0, 'plan mode patches nothing');
    assert.equal(counts.StatefulSetsFailed, 1);
    assert.equal(counts.DeferredSteps, 0);
    assert.equal(typeof counts.PassDuration, 'number');
  });

  it('fails the invocation when a target fails, after the others ran, naming it, with the failure in the metrics', async () => {
    const configFile = join(dir, 'two-targets.yaml');
    const good = sandboxConfig(kube.kubeconfigPath, github.url, token);
    const broken = good.replace('targets:\n', '').replace('name: demo', 'name: unreachable')
      .replace(JSON.stringify(kube.kubeconfigPath), JSON.stringify(join(dir, 'no-such-kubeconfig')));
    await writeFile(configFile, `${good}${broken}`);
    const { outcome, code, lines } = await invoke({ source: 'schedule', mode: 'plan' }, { configFile });
    assert.equal(code, 1);
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.errorType === 'TargetsFailedError');
    assert.match(outcome.ok ? '' : outcome.errorMessage, /^1 target failed: unreachable \(target unreachable: cannot read kubeconfig/);
    const messages = lines.map((l) => ('_aws' in l ? `emf:${(l as { outcome?: string }).outcome ?? ('reason' in l ? 'reason' : 'counts')}` : String(l.message)));
    // Each pass is logged and counted as it ends: the good target's summary and metrics come before the failure.
    assert.deepEqual(messages.filter((m) => m === 'pass finished' || m === 'target failed' || m.startsWith('emf:')),
      ['pass finished', 'emf:failed', 'emf:reason', 'emf:counts', 'target failed', 'emf:failed', 'emf:counts']);
    const failedCounts = emf(lines).filter((b) => 'TargetsFailed' in b).map((b) => b.TargetsFailed);
    assert.deepEqual(failedCounts, [0, 1]);
  });
});
