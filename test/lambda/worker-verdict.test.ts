// The worker's metrics and logs say what the CLI's exit code says (issue 30 item 1): a pass that finds a resize failed for
// good is `Passes{outcome=failed}` with the set counted (in total and per reason) and a log line naming target, set and
// reason; a change the guardrails refuse is counted blocked. In-process against both sandboxes, EMF read off stdout.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { SQSBatchResponse } from 'aws-lambda';
import { sandboxConfig, sandboxRecordKeyEnv, sandboxRecordKeyVariable } from '../../functions/cli/sandbox-config.ts';
import { createWorker } from '../../functions/lambda/worker.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { captureLambdaOutput } from '../support/lambda-output.ts';
import { lambdaContext } from './lambda-context.ts';
import { sqsRecord } from './local-sqs.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const queueArn = 'arn:aws:sqs:eu-west-1:123456789012:targets.fifo';

type Line = Record<string, unknown>;
interface EmfBlob extends Line { _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } }

/** The JSON lines (Powertools logs and EMF blobs) written to stdout and stderr while `act` runs. */
async function captureLines<T>(act: () => Promise<T>): Promise<{ result: T; lines: Line[] }> {
  const { result, lines } = await captureLambdaOutput(act);
  return { result, lines: lines.map((l) => JSON.parse(l) as Line) };
}

const emf = (lines: Line[]): EmfBlob[] => lines.filter((l): l is EmfBlob => '_aws' in l);
const dimensionsOf = (blob: EmfBlob): string[] => blob._aws.CloudWatchMetrics.flatMap((m) => m.Dimensions.flat()).sort();

describe('the worker counts failed and blocked StatefulSets as the exit code does', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let env: NodeJS.ProcessEnv;
  const token = 'VERDICT_GITHUB_TOKEN';
  let messages = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-worker-verdict-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(kube.kubeconfigPath, github.url, token));
    env = { STS_VOLUME_GITOPS_CONFIG: configFile, [token]: github.token, ...sandboxRecordKeyEnv() };
  });
  after(async () => {
    kube.stopTimer();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** One worker invocation for one message of the demo target; its answer and what it logged and published. */
  async function work(body: Record<string, unknown>): Promise<{ answer: SQSBatchResponse; lines: Line[] }> {
    messages += 1;
    const record = sqsRecord({ messageId: `m-${messages}`, body: JSON.stringify({ target: 'demo', ...body }), groupId: 'g', deduplicationId: `d-${messages}` }, queueArn);
    kube.startTimer(20); // the garbage collector finishes orphan deletes while a pass waits, as on a real cluster
    try {
      const { result, lines } = await captureLines(() => createWorker({ env })({ Records: [record] }, lambdaContext('worker')));
      return { answer: result, lines };
    } finally {
      kube.stopTimer();
    }
  }

  it('publishes a pass that finds a resize failed for good as failed, the set counted in total and by reason, and logs which', async () => {
    // clickhouse grows 20Gi -> 100Gi on a class whose backend stops at 50Gi: ControllerResizeInfeasible, for good.
    let pass: { answer: SQSBatchResponse; lines: Line[] } | undefined;
    for (let i = 0; i < 12 && pass === undefined; i++) {
      const worked = await work({ action: 'pass', trigger: 'schedule' });
      const summary = worked.lines.find((l) => l.message === 'pass finished');
      const sets = (summary?.statefulSets ?? []) as Array<{ name: string; outcome: string }>;
      if (sets.some((s) => s.name === 'analytics/clickhouse' && s.outcome === 'failed')) pass = worked;
      kube.tick(2);
    }
    assert.ok(pass, 'clickhouse failed within 12 passes');
    // Nothing a retry would mend: the message is not a batch item failure (the next scheduled pass looks again).
    assert.deepEqual(pass.answer, { batchItemFailures: [] });
    const blobs = emf(pass.lines);
    const passes = blobs.find((b) => 'Passes' in b);
    assert.equal(passes?.outcome, 'failed', 'the pass is failed, as `reconcile` exits 1');
    const counts = blobs.find((b) => 'TargetsFailed' in b);
    assert.equal(counts?.StatefulSetsFailed, 1);
    assert.equal(counts?.StatefulSetsBlocked, 0);
    assert.equal(counts?.TargetsFailed, 0, 'the target itself ran');
    assert.deepEqual(dimensionsOf(counts ?? assert.fail('counts')), ['service'], 'the total has no reason: the alarm reads it');
    const byReason = blobs.filter((b) => 'reason' in b);
    assert.deepEqual(byReason.map((b) => [b.reason, b.StatefulSetsFailed, dimensionsOf(b)]), [['expansion-failed', 1, ['reason', 'service']]]);
    const summary = pass.lines.find((l) => l.message === 'pass finished');
    assert.equal(summary?.outcome, 'failed');
    assert.equal(summary?.reportOutcome, 'ok', 'the pass itself got everywhere');
    assert.equal(summary?.level, 'ERROR');
    const needsAction = pass.lines.filter((l) => l.message === 'needs action');
    assert.deepEqual(needsAction.map((l) => [l.level, l.target, l.severity, l.kind, l.reason, l.subject]),
      [['ERROR', 'demo', 'failed', 'statefulset', 'expansion-failed', 'analytics/clickhouse']]);
    assert.match(String(needsAction[0]?.detail), /^data-clickhouse-\d: .*exceeds maximum allowed/);
  });

  it('counts a set the guardrails block by the guardrail, beside the failed one', async () => {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg);
    assert.ok(pg.includes('storage: 20Gi'));
    await github.commitFiles({ branch: 'main', message: 'pg to 500Gi', files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', 'storage: 500Gi') } });
    const { answer, lines } = await work({ action: 'pass', trigger: 'push' });
    assert.deepEqual(answer, { batchItemFailures: [] });
    const blobs = emf(lines);
    assert.equal(blobs.find((b) => 'Passes' in b)?.outcome, 'failed', 'failed before blocked');
    const counts = blobs.find((b) => 'TargetsFailed' in b);
    assert.deepEqual([counts?.StatefulSetsFailed, counts?.StatefulSetsBlocked], [1, 1]);
    const blocked = blobs.filter((b) => 'StatefulSetsBlocked' in b && 'reason' in b).map((b) => [b.reason, b.StatefulSetsBlocked]);
    assert.deepEqual(blocked, [['growth-limit', 1]], '20Gi -> 500Gi is past the default growth factor of 10');
    const needsAction = lines.filter((l) => l.message === 'needs action' && l.severity === 'blocked');
    assert.deepEqual(needsAction.map((l) => [l.level, l.subject, l.reason]), [['WARN', 'db/pg', 'growth-limit']]);
  });

  it('publishes the validation of one pull request, which runs no branch pass, as ok', async () => {
    await github.commitFiles({ branch: 'grow-redis', message: 'redis logs to 3Gi', files: { 'k8s/cache/redis.yaml': (await github.readFile('refs/heads/main', 'k8s/cache/redis.yaml') ?? '').replace('storage: 2Gi', 'storage: 3Gi') } });
    const number = await github.openPullRequest({ head: 'grow-redis', title: 'redis logs to 3Gi' });
    const { answer, lines } = await work({ action: 'validate', trigger: 'pull_request', pullRequest: number });
    assert.deepEqual(answer, { batchItemFailures: [] });
    assert.equal(emf(lines).find((b) => 'Passes' in b)?.outcome, 'ok');
  });

  it('says how many volumes are near full: on the pass summary, per target, and as VolumesNearFull', async () => {
    const configFile = join(dir, 'config-usage.yaml');
    // Growth from 40%: pg's first volume (8.5Gi of 20Gi by now) and clickhouse's are at least that full.
    const config = sandboxConfig(kube.kubeconfigPath, github.url, token, [], { recordKey: { env: sandboxRecordKeyVariable }, stateNamespace: 'default', prometheusUrl: kube.prometheus.url });
    assert.ok(config.includes('usedPercent: 80'));
    await writeFile(configFile, config.replace('usedPercent: 80', 'usedPercent: 40'));
    env = { ...env, STS_VOLUME_GITOPS_CONFIG: configFile };
    const { lines } = await work({ action: 'pass', trigger: 'schedule' });
    const summary = lines.find((l) => l.message === 'pass finished');
    assert.ok(typeof summary?.volumesNearFull === 'number' && summary.volumesNearFull >= 2, JSON.stringify(summary?.volumesNearFull));
    const counts = emf(lines).find((b) => 'VolumesNearFull' in b);
    assert.equal(counts?.VolumesNearFull, summary.volumesNearFull);
    assert.equal(counts?.UsageReadFailures, 0);
  });

});
