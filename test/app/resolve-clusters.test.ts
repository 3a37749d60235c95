// One cluster is one key wherever run time can tell (issue 34 item 6): two kubeconfig contexts, or files, naming one
// API server are one cluster, and so are an EKS cluster named with a roleArn and without one when STS says the
// function runs in that role's account. The rules between targets hold over those keys, and the queue's message
// groups follow them. Kubeconfig files are real files read as a pass would find them; the account is given.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveClusters, kubeconfigServer } from '../../functions/app/resolve-clusters.ts';
import { queuedMessage } from '../../functions/app/target-messages.ts';
import { ConfigError, parseConfig, type Config } from '../../functions/domain/config.ts';
import { kubeconfigServerIn } from '../../functions/domain/kubeconfig-server.ts';

const kubeconfig = (contexts: Record<string, string>, current?: string): string => `apiVersion: v1
kind: Config
clusters:
${Object.entries(contexts).map(([name, server]) => `- name: ${name}-cluster\n  cluster: { server: "${server}" }`).join('\n')}
contexts:
${Object.keys(contexts).map((name) => `- name: ${name}\n  context: { cluster: ${name}-cluster, user: me }`).join('\n')}
users:
- name: me
  user: { token: not-a-real-token }
${current ? `current-context: ${current}\n` : ''}`;

const target = (name: string, allow: string, cluster: string): string => `
  - name: ${name}
    source:
      local: { directory: ./repo, paths: ["k8s/**/*.yaml"] }
    cluster:
      ${cluster}
    namespaces: { state: sts-${name}, allow: [${allow}] }`;

describe('cluster keys as run time resolves them', () => {
  let dir: string;
  const parse = (...targets: string[]): Config => parseConfig(`targets:${targets.join('')}\n`, 'c.yaml', dir);
  const problemsOf = async (work: Promise<unknown>): Promise<string[]> => {
    try {
      await work;
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.problems;
    }
    return assert.fail('expected a ConfigError');
  };
  const group = (config: Config, index: number): string => {
    const t = config.targets[index];
    assert.ok(t);
    return queuedMessage(t, { target: t.name, action: 'pass', trigger: 'schedule' }, 'slot-1').groupId;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-resolve-clusters-'));
    await writeFile(join(dir, 'admin.yaml'), kubeconfig({ admin: 'https://10.0.0.1:6443', other: 'https://10.9.9.9:6443' }, 'admin'));
    // The same server spelt with a trailing slash and an upper-case host, under another context in another file.
    await writeFile(join(dir, 'tool.yaml'), kubeconfig({ 'tool-identity': 'HTTPS://10.0.0.1:6443/' }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads the server of a kubeconfig context (or the current one), as the pass will reach it', () => {
    assert.equal(kubeconfigServer({ path: join(dir, 'admin.yaml') }), 'https://10.0.0.1:6443');
    assert.equal(kubeconfigServer({ path: join(dir, 'admin.yaml'), context: 'other' }), 'https://10.9.9.9:6443');
    assert.equal(kubeconfigServer({ path: join(dir, 'admin.yaml'), context: 'nope' }), undefined);
    assert.equal(kubeconfigServer({ path: join(dir, 'missing.yaml') }), undefined);
    assert.equal(kubeconfigServerIn(': not yaml [', undefined), undefined);
  });

  it('refuses two kubeconfig contexts of one cluster that share a namespace, naming both targets', async () => {
    const config = parse(target('ops', 'db', 'kubeconfig: { path: ./admin.yaml }'), target('app', 'db, cache', 'kubeconfig: { path: ./tool.yaml, context: tool-identity }'));
    const problems = await problemsOf(resolveClusters(config, 'c.yaml', { kubeconfigServer }));
    assert.deepEqual(problems, [
      'target "ops" and target "app" both resize StatefulSets in namespace db on the same cluster (the cluster at https://10.0.0.1:6443): each could find '
      + 'the same StatefulSet in its Git paths, and the two would resize, recreate and report it against each other; give each namespace to one '
      + 'target (merge the two targets\' paths into one target, or split their namespaces.allow)',
    ]);
  });

  it('puts two spellings of one kubeconfig cluster in one message group, and another context in its own', async () => {
    const config = await resolveClusters(parse(
      target('ops', 'db', 'kubeconfig: { path: ./admin.yaml }'), target('app', 'cache', 'kubeconfig: { path: ./tool.yaml, context: tool-identity }'),
      target('elsewhere', 'db', 'kubeconfig: { path: ./admin.yaml, context: other }'),
    ), 'c.yaml', { kubeconfigServer });
    assert.equal(group(config, 0), 'kubeconfig:https://10.0.0.1:6443');
    assert.equal(group(config, 1), group(config, 0), 'one cluster: its passes run one at a time');
    assert.equal(group(config, 2), 'kubeconfig:https://10.9.9.9:6443');
  });

  it('takes an EKS cluster without a roleArn to be in the account the tool runs in, asking only when it decides something', async () => {
    const withRole = 'eks: { name: prod, region: eu-west-1, roleArn: "arn:aws:iam::111111111111:role/sts" }';
    const own = 'eks: { name: prod, region: eu-west-1 }';
    let asked = 0;
    const ownAccount = (account: string) => async (): Promise<string> => { asked++; return account; };
    const overlapping = parse(target('a', 'db', own), target('b', 'db', withRole));
    assert.match((await problemsOf(resolveClusters(overlapping, 'c.yaml', { ownAccount: ownAccount('111111111111') })))[0] ?? '',
      /^target "a" and target "b" both resize StatefulSets in namespace db on the same cluster \(EKS cluster prod in eu-west-1 \(account 111111111111\)\)/);
    // Another account: two clusters of one name, each with its own group.
    const apart = await resolveClusters(overlapping, 'c.yaml', { ownAccount: ownAccount('222222222222') });
    assert.notEqual(group(apart, 0), group(apart, 1));
    const side = await resolveClusters(parse(target('a', 'db', own), target('b', 'cache', withRole)), 'c.yaml', { ownAccount: ownAccount('111111111111') });
    assert.equal(group(side, 0), group(side, 1), 'one EKS cluster named two ways is one message group');
    assert.equal(asked, 3);
    // Nothing to tell apart: no question to STS.
    await resolveClusters(parse(target('a', 'db', own), target('b', 'db', 'eks: { name: other, region: eu-west-1, roleArn: "arn:aws:iam::111111111111:role/sts" }')), 'c.yaml', { ownAccount: ownAccount('111111111111') });
    assert.equal(asked, 3);
  });
});
