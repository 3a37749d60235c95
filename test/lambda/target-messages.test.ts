// The queue's message fields, derived from the config: pure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetConfig } from '../../functions/domain/config.ts';
import { clusterKey } from '../../functions/domain/cluster-key.ts';
import { parseTargetMessage, queuedMessage, scheduledMessages } from '../../functions/app/target-messages.ts';

const target = (name: string, cluster: TargetConfig['cluster']): TargetConfig => ({
  name, cluster, source: { local: { directory: '/repo', paths: ['**/*.yaml'] } }, namespaces: { default: 'db', state: 'db', allow: ['db'] },
  pullRequests: { validate: true, recovery: true, writeBack: true, forks: 'neutral' }, sizeSources: [],
});

describe('target messages', () => {
  it('groups by cluster: one EKS cluster per account and region, one kubeconfig context', () => {
    assert.equal(clusterKey(target('a', { eks: { name: 'prod', region: 'eu-west-1' } })), 'eks:self/eu-west-1/prod');
    assert.equal(clusterKey(target('b', { eks: { name: 'prod', region: 'eu-west-1', roleArn: 'arn:aws:iam::210987654321:role/x' } })), 'eks:210987654321/eu-west-1/prod');
    assert.equal(clusterKey(target('c', { kubeconfig: { path: '/k', context: 'kind' } })), 'kubeconfig:/k#kind');
  });

  it('keeps SQS ids within 128 printable characters, hashing longer or other keys', () => {
    const long = target('t', { kubeconfig: { path: `/${'x'.repeat(200)}` } });
    const message = queuedMessage(long, { target: 't', action: 'pass', trigger: 'schedule' }, 'slot-1');
    assert.match(message.groupId, /^[0-9a-f]{64}$/);
    const spaced = queuedMessage(target('t', { kubeconfig: { path: '/with space' } }), { target: 't', action: 'pass', trigger: 'schedule' }, 'slot-1');
    assert.match(spaced.groupId, /^[0-9a-f]{64}$/);
    assert.equal(message.deduplicationId, 't/pass/slot-1');
  });

  it('deduplicates scheduled passes per slot, not across slots', () => {
    const config = { targets: [target('a', { kubeconfig: { path: '/k' } })] } as never;
    const [first] = scheduledMessages(config, 300_000 * 7 + 1, 300_000);
    const [same] = scheduledMessages(config, 300_000 * 8 - 1, 300_000);
    const [next] = scheduledMessages(config, 300_000 * 8, 300_000);
    assert.equal(first?.deduplicationId, same?.deduplicationId);
    assert.notEqual(first?.deduplicationId, next?.deduplicationId);
    assert.throws(() => scheduledMessages(config, 0, 0), /time slot must be a positive number/);
  });

  it('refuses bodies that are not target messages, saying why', () => {
    assert.throws(() => parseTargetMessage('nope'), /not a target message: the body is not JSON/);
    assert.throws(() => parseTargetMessage('{"action":"pass"}'), /"target" must be a target name/);
    assert.deepEqual(parseTargetMessage('{"target":"a","action":"validate"}'), { target: 'a', action: 'validate', trigger: 'unknown' });
  });

  it('carries a merge queue\'s commit on validate messages only, with 40-hex SHAs', () => {
    const mergeGroup = { headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40) };
    assert.deepEqual(parseTargetMessage(JSON.stringify({ target: 'demo', action: 'validate', trigger: 'merge_group', mergeGroup })),
      { target: 'demo', action: 'validate', trigger: 'merge_group', mergeGroup });
    assert.throws(() => parseTargetMessage(JSON.stringify({ target: 'demo', action: 'validate', mergeGroup: { headSha: 'main', baseSha: 'b'.repeat(40) } })), /"mergeGroup" must be \{ headSha, baseSha \}/);
    assert.throws(() => parseTargetMessage(JSON.stringify({ target: 'demo', action: 'pass', mergeGroup })), /goes with the validate action only/);
    assert.deepEqual(parseTargetMessage('{"target":"a","action":"validate","pullRequest":12}'), { target: 'a', action: 'validate', trigger: 'unknown', pullRequest: 12 });
    assert.throws(() => parseTargetMessage('{"target":"a","action":"validate","pullRequest":"12"}'), /"pullRequest" must be a pull request number/);
  });

  it('carries the check runs asked for again (a Re-run), with a commit SHA, never beside a merge queue commit', () => {
    const rerun = { sha: 'c'.repeat(40), check: 'sts-volume-gitops/validate (a)' };
    assert.deepEqual(parseTargetMessage(JSON.stringify({ target: 'a', action: 'validate', trigger: 'check_run', pullRequest: 3, rerun })),
      { target: 'a', action: 'validate', trigger: 'check_run', pullRequest: 3, rerun });
    assert.deepEqual(parseTargetMessage(JSON.stringify({ target: 'a', action: 'pass', trigger: 'check_suite', rerun: { sha: rerun.sha } })),
      { target: 'a', action: 'pass', trigger: 'check_suite', rerun: { sha: rerun.sha } });
    assert.throws(() => parseTargetMessage(JSON.stringify({ target: 'a', action: 'pass', rerun: { sha: 'HEAD' } })), /"rerun" must be \{ sha, check\? \}/);
    assert.throws(() => parseTargetMessage(JSON.stringify({ target: 'a', action: 'pass', rerun: { sha: rerun.sha, check: 7 } })), /"rerun\.check" must be/);
    assert.throws(() => parseTargetMessage(JSON.stringify({ target: 'a', action: 'validate', trigger: 'merge_group', mergeGroup: { headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40) }, rerun })), /"rerun" does not go with "mergeGroup"/);
  });
});
