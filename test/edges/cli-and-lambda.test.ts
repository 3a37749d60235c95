// The edges end to end: the CLI's plan/reconcile and the Lambda handler, against both sandboxes seeded from examples/.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Context } from 'aws-lambda';
import { exampleSizeSources, sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { handler } from '../../functions/lambda/handler.ts';
import type { TargetRunJson } from '../../functions/app/report-json.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { runCli } from '../support/cli-children.ts';

const examples = new URL('../../examples/', import.meta.url).pathname;


function lambdaContext(remainingMs: number): Context {
  return {
    awsRequestId: 'req-1', functionName: 'sts-volume-gitops', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:sts-volume-gitops',
    memoryLimitInMB: '512', logGroupName: '/aws/lambda/sts-volume-gitops', logStreamName: 's', callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remainingMs, done: () => undefined, fail: () => undefined, succeed: () => undefined,
  };
}

describe('CLI and Lambda against the sandboxes', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let configPath: string;
  const env: Record<string, string> = sandboxRecordKeyEnv();

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-edges-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    configPath = join(dir, 'config.yaml');
    await writeFile(configPath, sandboxConfig(kube.kubeconfigPath, github.url, 'TEST_GITHUB_TOKEN'));
    env.TEST_GITHUB_TOKEN = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('plan prints what would change with file:line, exits 0, and writes nothing', async () => {
    kube.requestLog.reset();
    const result = await runCli(['plan', '--config', configPath], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Plan for target demo at commit [0-9a-f]{12}/);
    assert.match(result.stdout, /data: 10Gi -> 20Gi, class silver -> gold \[standard\] 0\/3 done {2}\(k8s\/db\/pg\.yaml:33\)/);
    assert.match(result.stdout, /data-pg-0: to be patched \(request 10Gi, capacity 10Gi, class silver, volume silver\)/);
    assert.deepEqual(kube.requestLog.writes(), []);
  });

  it('plan --json prints the report as JSON', async () => {
    const result = await runCli(['plan', '--config', configPath, '--json'], env);
    const runs = JSON.parse(result.stdout) as Array<{ target: string; report: { statefulSets: Array<{ name: string }> } }>;
    assert.deepEqual(runs[0]?.report.statefulSets.map((s) => s.name).sort(), ['clickhouse', 'pg', 'redis']);
  });

  it('plan says no manifest was read when the paths match no file, and exits 1 unless size sources are still read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-edges-paths-'));
    const typo = join(dir, 'typo.yaml');
    await writeFile(typo, sandboxConfig(kube.kubeconfigPath, github.url, 'TEST_GITHUB_TOKEN').replace('paths: ["k8s/**/*.yaml"]', 'paths: ["k8/**/*.yaml"]'));
    const text = await runCli(['plan', '--config', typo], env);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /\n {2}! paths \["k8\/\*\*\/\*\.yaml"\] match no YAML file at [0-9a-f]{12}: no manifest was read; k8\/ has no YAML file; did you mean k8s\/\*\*\/\*\.yaml\?\n/);
    assert.doesNotMatch(text.stdout, /no StatefulSets in the target paths/);
    const json = await runCli(['plan', '--config', typo, '--json'], env);
    const [run] = JSON.parse(json.stdout) as TargetRunJson[];
    assert.deepEqual(run?.report?.noManifests?.paths, ['k8/**/*.yaml']);
    assert.deepEqual(run?.verdict.problems.map((p) => [p.severity, p.kind, p.reason, p.subject]), [['blocked', 'manifest', 'no-manifests', 'k8/**/*.yaml']]);
    // With size sources the pass still reads those: said in the report, not a blocked verdict.
    const mapped = join(dir, 'mapped.yaml');
    await writeFile(mapped, sandboxConfig(kube.kubeconfigPath, github.url, 'TEST_GITHUB_TOKEN', exampleSizeSources).replace('paths: ["k8s/**/*.yaml"]', 'paths: ["k8/**/*.yaml"]'));
    const [withSources] = JSON.parse((await runCli(['plan', '--config', mapped, '--json'], env)).stdout) as TargetRunJson[];
    assert.equal(withSources?.report?.noManifests?.sizeSources, true);
    assert.match(withSources?.report?.noManifests?.message ?? '', /no manifest was read, only the size sources/);
    assert.ok(!withSources?.verdict.problems.some((p) => p.reason === 'no-manifests'));
  });

  it('exits 2 with an actionable message on bad usage, a bad config or an unknown target', async () => {
    assert.equal((await runCli(['plan', '--bogus'], env)).code, 2);
    assert.match((await runCli(['plan'], {})).stderr, /pass --config FILE or set STS_VOLUME_GITOPS_CONFIG/);
    const unknown = await runCli(['plan', '--config', configPath, '--target', 'nope'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no target named nope in the configuration \(targets: demo\)/);
    assert.equal((await runCli(['frobnicate'], env)).code, 2);
  });

  it('the Lambda handler runs one pass per target with structured logs and a JSON report', async () => {
    process.env.STS_VOLUME_GITOPS_CONFIG = configPath;
    process.env.TEST_GITHUB_TOKEN = github.token;
    Object.assign(process.env, env); // the record key
    kube.startTimer(20); // the garbage collector finishes orphan deletes while the pass waits, as on a real cluster
    const result = await handler({ source: 'schedule' }, lambdaContext(300_000));
    kube.stopTimer();
    assert.deepEqual(result.runs.map((r) => r.error), [undefined]);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), result, 'the result is plain JSON');
    const report = result.runs[0]?.report;
    assert.equal(report?.outcome, 'ok');
    assert.deepEqual(report?.statefulSets.map((s) => s.templateUpdate), ['recreated', 'recreated', 'recreated']);
    assert.deepEqual(report?.statefulSets.map((s) => s.outcome), ['in-progress', 'in-progress', 'in-progress']);
  });

  it('the Lambda handler starts no StatefulSet when the invocation is about to time out', async () => {
    const result = await handler({ source: 'schedule' }, lambdaContext(5_000));
    assert.equal(result.runs[0]?.report?.outcome, 'incomplete');
    assert.ok(result.runs[0]?.report?.statefulSets.every((s) => s.outcome === 'not-started'));
    assert.match(result.runs[0]?.report?.notes.join(' ') ?? '', /running out of time/);
    assert.deepEqual(result.runs[0]?.deferred.map((d) => d.replace(/\d+s/, 'Ns')),
      ['recovery pull requests: Ns of this invocation left', 'write-back pull requests: Ns of this invocation left', 'pull request checks and progress: Ns of this invocation left'], 'GitHub steps are left for the next pass');
  });

  it('a plan invocation about to time out sends no dry run and reports its StatefulSets as not started', async () => {
    kube.requestLog.reset();
    const result = await handler({ source: 'manual', mode: 'plan' }, lambdaContext(5_000));
    assert.equal(result.runs[0]?.report?.mode, 'plan');
    assert.equal(result.runs[0]?.report?.outcome, 'incomplete');
    assert.ok(result.runs[0]?.report?.statefulSets.some((s) => s.outcome === 'not-started'));
    assert.equal(kube.requestLog.countsByVerbAndResource()['patch persistentvolumeclaims (dryRun)'], undefined);
  });

  it('reconcile converges over passes and exits 1 while the infeasible resize stays failed', async () => {
    let last = { code: -1, stdout: '', stderr: '' };
    for (let i = 0; i < 8; i++) {
      kube.tick(3);
      last = await runCli(['reconcile', '--config', configPath], env);
    }
    assert.match(last.stdout, /= db\/pg \(OrderedReady, 3 replicas\): converged/);
    assert.match(last.stdout, /x analytics\/clickhouse .*: failed/);
    assert.match(last.stdout, /exceeds maximum allowed 53687091200/);
    assert.equal(last.code, 1);
  });

  it('reconcile --json prints plain JSON once a recovery is decided: its verdict failed as the exit code, sizes as decimal strings, links as an object', async () => {
    const result = await runCli(['reconcile', '--config', configPath, '--json'], env);
    assert.equal(result.code, 1, result.stderr);
    const runs = JSON.parse(result.stdout) as TargetRunJson[];
    // The exit code and the JSON agree: the pass got everywhere (report.outcome) and its verdict is failed, naming why.
    assert.equal(runs[0]?.report?.outcome, 'ok');
    assert.equal(runs[0]?.verdict.outcome, 'failed');
    assert.deepEqual(runs[0]?.verdict.problems.map((p) => [p.severity, p.kind, p.reason, p.subject]), [['failed', 'statefulset', 'expansion-failed', 'analytics/clickhouse']]);
    const proposal = runs[0]?.recovery?.outcomes.find((o) => o.decision?.kind === 'propose');
    assert.ok(proposal?.decision?.kind === 'propose', result.stdout.slice(0, 2000));
    assert.match(proposal.decision.bytes, /^\d+$/);
    assert.equal(typeof runs[0]?.recovery?.links, 'object');
    assert.equal(runs[0]?.recovery?.links[proposal.key], proposal.pullRequestUrl);
  });
});
