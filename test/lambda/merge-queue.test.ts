// Merge queues through the webhook and worker Lambdas, with GitHub's own recorded payloads (@octokit/webhooks-examples)
// pointed at the sandbox repository: `merge_group` `checks_requested` puts the same check as the pull request's on the
// queue's merge commit (a check run: the target authenticates as the App), a push to a queue-named branch checks
// nothing (a pull request's head pushed there leaves its failing check in place), a commit changing none of the
// target's files still gets its check, and a changed base re-checks a pull request.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { runTargets } from '../../functions/app/run-targets.ts';
import { parseTargetMessage } from '../../functions/app/target-messages.ts';
import { sandboxConfig } from '../../functions/cli/sandbox-config.ts';
import { loadConfig } from '../../functions/domain/config.ts';
import { validateContext } from '../../functions/feedback/check-names.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import { pullRequestPayload, pushPayload } from '../../sandbox/github/webhooks.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { gitHubDelivery } from './function-url-event.ts';
import { lambdaContext } from './lambda-context.ts';
import type { LocalSqs } from './local-sqs.ts';
import { startWebhookWorld, webhookSecret, type WebhookWorld } from './webhook-world.ts';

const secret = webhookSecret;
const context = validateContext('demo');

type Payload = Record<string, unknown> & { action: string; repository: Record<string, unknown> };
const recorded = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as Array<{ name: string; examples: Payload[] }>;
const exampleOf = (event: string, action: string): Payload => {
  const found = recorded.find((e) => e.name === event)?.examples.find((e) => e.action === action);
  assert.ok(found, `no ${event} ${action} in @octokit/webhooks-examples`);
  return structuredClone(found);
};

describe('merge queues and base changes through the webhook', () => {
  let world: WebhookWorld;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let sqs: LocalSqs;
  let webhook: WebhookWorld['webhook'];

  before(async () => {
    world = await startWebhookWorld('merge-queue', (k, g) => ({
      configText: sandboxConfig(k.kubeconfigPath, g.url, 'UNUSED')
        .replace('token: { env: UNUSED }', `app: { appId: ${g.app.appId}, installationId: ${g.app.installationId}, privateKey: { env: QUEUE_APP_KEY } }`),
      env: { QUEUE_APP_KEY: g.app.privateKeyPem },
    }));
    ({ kube, github, sqs, webhook } = world);
  });
  after(() => world.close());

  /** The recorded payload, about this sandbox's repository. */
  function retarget(payload: Payload): Payload {
    return { ...payload, repository: { ...payload.repository, name: github.repo, full_name: `${github.owner}/${github.repo}`, owner: { ...(payload.repository.owner as object), login: github.owner } } };
  }

  async function deliver(event: string, payload: unknown): Promise<{ statusCode: number; body: Record<string, unknown> }> {
    const answer = await webhook(await gitHubDelivery({ event, payload, secret }), lambdaContext('webhook')) as { statusCode: number; body: string };
    return { statusCode: answer.statusCode, body: JSON.parse(answer.body) as Record<string, unknown> };
  }

  const drainToWorker = (): Promise<unknown[]> => world.drainToWorker();

  /** What GitHub's queue does: a commit on `gh-readonly-queue/main/pr-N-<main>` holding main plus the pull request. */
  async function queueEntry(number: number, files: Record<string, string>): Promise<{ headSha: string; baseSha: string; ref: string }> {
    const baseSha = await github.state.git.resolve('refs/heads/main') ?? assert.fail('main');
    const branch = `gh-readonly-queue/main/pr-${number}-${baseSha}`;
    const headSha = await github.commitFiles({ branch, baseBranch: 'main', message: `Merge pull request #${number}`, files });
    return { headSha, baseSha, ref: `refs/heads/${branch}` };
  }

  function mergeGroupEvent(entry: { headSha: string; baseSha: string; ref: string }): Payload {
    const payload = retarget(exampleOf('merge_group', 'checks_requested'));
    const group = payload.merge_group as Record<string, unknown>;
    return { ...payload, merge_group: { ...group, head_sha: entry.headSha, base_sha: entry.baseSha, head_ref: entry.ref, base_ref: 'refs/heads/main' } };
  }

  async function checkRunOn(sha: string): Promise<{ conclusion: string | null; title: string | null; annotations: string[] }> {
    const run = github.state.checkRuns.filter((r) => r.headSha === sha && r.name === context).at(-1);
    assert.ok(run, `no check run ${context} on ${sha}`);
    return { conclusion: run.conclusion, title: run.output.title, annotations: run.annotations.map((a) => `${a.level} ${a.path}:${a.startLine} ${a.message}`) };
  }

  async function pgWith(size: string): Promise<string> {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml') ?? assert.fail('pg.yaml');
    return pg.replace('storage: 20Gi', `storage: ${size}`);
  }

  it('puts the pull request\'s verdict on the merge queue\'s commit for merge_group checks_requested, writing nothing to the cluster', async () => {
    const prHead = await github.commitFiles({ branch: 'shrink-pg', message: 'pg to 5Gi', files: { 'k8s/db/pg.yaml': await pgWith('5Gi') } });
    const number = await github.openPullRequest({ head: 'shrink-pg', title: 'pg to 5Gi' });
    const pr = github.state.pulls.find((p) => p.number === number) ?? assert.fail('pr');
    assert.equal((await deliver('pull_request', pullRequestPayload(github.context, pr, 'opened', 'dana'))).statusCode, 202);
    await drainToWorker();
    const entry = await queueEntry(number, { 'k8s/db/pg.yaml': await pgWith('5Gi') });
    const answer = await deliver('merge_group', mergeGroupEvent(entry));
    assert.deepEqual(answer, { statusCode: 202, body: { queued: [{ target: 'demo', action: 'validate' }] } });
    const kubeWrites = kube.requestLog.writes().length;
    const comments = github.state.comments.length;
    assert.deepEqual(await drainToWorker(), [{ target: 'demo', action: 'validate', trigger: 'merge_group', mergeGroup: { headSha: entry.headSha, baseSha: entry.baseSha } }]);
    const onQueue = await checkRunOn(entry.headSha);
    const onPull = await checkRunOn(prHead);
    assert.equal(onQueue.conclusion, 'failure');
    assert.deepEqual({ conclusion: onQueue.conclusion, title: onQueue.title, annotations: onQueue.annotations }, onPull, 'the same verdict as the pull request');
    assert.match(onQueue.annotations[0] ?? '', /^failure k8s\/db\/pg\.yaml:\d+ 5Gi is not above the current capacity/);
    assert.deepEqual(kube.requestLog.writes().slice(kubeWrites), [], 'a merge queue never causes a cluster write');
    assert.equal(github.state.comments.length, comments, 'no comment: the queued pull request carries its own');
  });

  it('checks a queue commit on merge_group alone: the push of its queue branch queues nothing', async () => {
    const entry = await queueEntry(900, { 'k8s/db/pg.yaml': await pgWith('40Gi') });
    const push = await pushPayload(github.context, entry.ref.replace('refs/heads/', ''), undefined, entry.headSha, 'github-merge-queue[bot]');
    assert.match(String((await deliver('push', push)).body.ignored), /^a push to a gh-readonly-queue\/ branch validates nothing: .* checked only on GitHub's merge_group delivery/);
    assert.deepEqual(await drainToWorker(), [], 'nothing queued for the push');
    assert.equal(github.state.checkRuns.some((r) => r.headSha === entry.headSha), false);
    assert.equal((await deliver('merge_group', mergeGroupEvent(entry))).statusCode, 202);
    assert.equal((await deliver('merge_group', mergeGroupEvent(entry))).statusCode, 202, 'a redelivery');
    const messages = await drainToWorker();
    assert.equal(messages.length, 1, 'deduplicated: one check for one queue commit');
    assert.equal((await checkRunOn(entry.headSha)).conclusion, 'success');
    assert.match((await checkRunOn(entry.headSha)).annotations[0] ?? '', /^notice k8s\/db\/pg\.yaml:\d+ \d+Gi → 40Gi and VolumeAttributesClass silver → gold on \d+ PVCs/);
  });

  it('leaves a pull request\'s failing check in place when its head is pushed to a queue-named branch (issue 28 item 3)', async () => {
    const prHead = await github.commitFiles({ branch: 'spoof-pg', message: 'pg to 4Gi', files: { 'k8s/db/pg.yaml': await pgWith('4Gi') } });
    const number = await github.openPullRequest({ head: 'spoof-pg', title: 'pg to 4Gi' });
    const pr = github.state.pulls.find((p) => p.number === number) ?? assert.fail('pr');
    await deliver('pull_request', pullRequestPayload(github.context, pr, 'opened', 'mallory'));
    await drainToWorker();
    assert.equal((await checkRunOn(prHead)).conclusion, 'failure');
    const runsBefore = structuredClone(github.state.checkRuns.filter((r) => r.headSha === prHead));
    const statusesBefore = github.state.statuses.length;
    // Any collaborator may push there (GitHub reserves no prefix): the pull request's own head, named as its own base,
    // so that the "queue commit" changes nothing and would pass as "no volume changes".
    const branch = `gh-readonly-queue/main/pr-${number}-${prHead}`;
    await github.state.git.updateRef(`refs/heads/${branch}`, prHead);
    const answer = await deliver('push', await pushPayload(github.context, branch, undefined, prHead, 'mallory'));
    const queued = await drainToWorker();
    assert.equal((await checkRunOn(prHead)).conclusion, 'failure', 'the pull request\'s failing check stays failing');
    assert.deepEqual(github.state.checkRuns.filter((r) => r.headSha === prHead), runsBefore, 'the pull request\'s check is untouched');
    assert.deepEqual(queued, []);
    assert.equal(answer.statusCode, 202);
    assert.match(String(answer.body.ignored), /validates nothing/);
    assert.equal(github.state.statuses.length, statusesBefore, 'and no commit status is written either');
    // Even a signed merge_group naming that head (GitHub never does: its queue commits are its own) writes no check:
    // it is a GitHub item that failed (logged, counted in GitHubItemsFailed; whoever sent it holds the webhook secret).
    const forged = mergeGroupEvent({ headSha: prHead, baseSha: prHead, ref: `refs/heads/${branch}` });
    assert.equal((await deliver('merge_group', forged)).statusCode, 202);
    const [message] = sqs.drain().map((r) => parseTargetMessage(r.body));
    assert.deepEqual(message?.mergeGroup, { headSha: prHead, baseSha: prHead });
    const [run] = await runTargets(await loadConfig(undefined, world.env), {
      env: world.env, mode: 'validate', targetName: 'demo', holderIdentity: 'test', mergeGroup: message.mergeGroup,
    });
    assert.deepEqual(run?.feedback?.failures.map((f) => `${f.item}: ${f.error}`), [
      `merge queue commit ${prHead}: refused: it is the head of open pull request #${number}, whose own check stands; GitHub's merge queue `
        + 'checks commits it made, so this delivery did not come from it (check who holds the webhook secret)',
    ]);
    assert.deepEqual(github.state.checkRuns.filter((r) => r.headSha === prHead), runsBefore);
  });

  it('passes a queue commit that changes none of the target\'s files (a missing required check would stall the queue)', async () => {
    const entry = await queueEntry(901, { 'README.md': 'docs only\n' });
    await deliver('merge_group', mergeGroupEvent(entry));
    await drainToWorker();
    const check = await checkRunOn(entry.headSha);
    assert.equal(check.conclusion, 'success');
    assert.match(check.title ?? '', /^no volume changes/);
  });

  it('ignores a destroyed merge group and a deleted queue branch', async () => {
    const destroyed = { ...retarget(exampleOf('merge_group', 'checks_requested')), action: 'destroyed' };
    assert.match(String((await deliver('merge_group', destroyed)).body.ignored), /merge_group destroyed asks for no check/);
    const entry = await queueEntry(902, { 'README.md': 'again\n' });
    const deleted = { ...await pushPayload(github.context, entry.ref.replace('refs/heads/', ''), entry.headSha, undefined, 'github-merge-queue[bot]'), deleted: true };
    assert.match(String((await deliver('push', deleted)).body.ignored), /validates nothing/);
    assert.equal(sqs.drain().length, 0);
  });

  it('re-checks a pull request whose base was changed (that one alone), and ignores other edits', async () => {
    const pr = github.state.pulls.find((p) => p.head === 'shrink-pg') ?? assert.fail('pr');
    const otherHead = await github.commitFiles({ branch: 'grow-other', message: 'pg to 30Gi', files: { 'k8s/db/pg.yaml': await pgWith('30Gi') } });
    await github.openPullRequest({ head: 'grow-other', title: 'pg to 30Gi' });
    const opened = retarget(exampleOf('pull_request', 'opened'));
    const ours = pullRequestPayload(github.context, pr, 'opened', 'dana');
    const edited = { ...opened, ...ours, action: 'edited', changes: { base: { ref: { from: 'develop' }, sha: { from: '0'.repeat(40) } } } };
    assert.deepEqual((await deliver('pull_request', edited)).body, { queued: [{ target: 'demo', action: 'validate' }] });
    const retitled = { ...edited, changes: { title: { from: 'old title' } } };
    assert.match(String((await deliver('pull_request', retitled)).body.ignored), /pull_request edited changes nothing to check/);
    assert.deepEqual(await drainToWorker(), [{ target: 'demo', action: 'validate', trigger: 'pull_request', pullRequest: pr.number }]);
    assert.equal(github.state.checkRuns.some((r) => r.headSha === otherHead), false, 'a pull request\'s own event checks it alone');
  });
});
