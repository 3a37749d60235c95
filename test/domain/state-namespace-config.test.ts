// The state namespace is never a workload namespace (issue 28 item 6): the configuration refuses one listed in the
// target's own `namespaces.allow`, or in the allow of another target on the same cluster, saying why; `*` is accepted
// (the engine leaves the state namespace out of it: test/engine/allowed-namespaces.test.ts), but not on a cluster where
// another target keeps its state namespace, and two targets on one cluster may not share a workload namespace (issue
// 34 item 6). Pure: parseConfig, over the keys the file gives (run time's keys: test/app/resolve-clusters.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../functions/domain/config.ts';
import { configProblems } from '../support/config-text.ts';

const target = (name: string, namespaces: string, cluster = 'kubeconfig: { path: ./kubeconfig }'): string => `
  - name: ${name}
    source:
      local: { directory: ./repo, paths: ["k8s/**/*.yaml"] }
    cluster:
      ${cluster}
    namespaces: ${namespaces}`;

const config = (...targets: string[]): string => `targets:${targets.join('')}\n`;

describe('namespaces.state and namespaces.allow', () => {
  it('refuses a state namespace the target also lists as a workload namespace, saying why and what to do', () => {
    const problems = configProblems(config(target('prod', '{ state: db, allow: [db, cache] }')));
    assert.deepEqual(problems, [
      'target "prod": namespaces.state "db" is also in namespaces.allow: it holds the Lease and the recreation records (each an instruction to create '
      + 'a StatefulSet), and application teams usually may write ConfigMaps in the namespaces they deploy to: whoever may write ConfigMaps there '
      + 'can plant records (refused and reported) or delete a genuine one while its StatefulSet is absent; give the target a state namespace of '
      + 'its own (leave namespaces.state unset for sts-volume-gitops, which `npx sts-volume-gitops rbac` creates), or take it out of allow',
    ]);
  });

  it('refuses the default state namespace listed in allow', () => {
    assert.match(configProblems(config(target('prod', '{ allow: [db, sts-volume-gitops] }')))[0] ?? '', /^target "prod": namespaces\.state "sts-volume-gitops" is also in namespaces\.allow: /);
  });

  it('refuses another target\'s state namespace in an allow on the same cluster, and allows it on another cluster', () => {
    const problems = configProblems(config(target('a', '{ state: sts-a, allow: [db] }'), target('b', '{ state: sts-b, allow: [cache, sts-a] }')));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /^target "b": namespaces\.allow lists "sts-a", the state namespace of target a on the same cluster \(the cluster of \/etc\/sts\/kubeconfig\): it holds the Lease .*; give target a another namespaces\.state, or take it out of this allow$/);
    const eks = (account: string): string => `eks: { name: prod, region: eu-west-1, roleArn: "arn:aws:iam::${account}:role/sts" }`;
    assert.throws(() => parseConfig(config(target('a', '{ state: sts-a, allow: [db] }', eks('111111111111')), target('b', '{ allow: [sts-a] }', eks('111111111111'))), 't', '/'), /the state namespace of target a on the same cluster/);
    const accepted = parseConfig(config(
      target('a', '{ state: sts-a, allow: [db] }', eks('111111111111')), target('b', '{ allow: [sts-a] }', eks('222222222222')),
      target('c', '{ allow: [sts-a] }', 'kubeconfig: { path: ./other-kubeconfig }'),
    ), 't', '/');
    assert.equal(accepted.targets.length, 3);
  });

  it('refuses "*" on a cluster where another target keeps its state namespace, naming both', () => {
    const problems = configProblems(config(target('a', '{ state: sts-a, allow: [db] }'), target('wide', '{ state: sts-wide, allow: ["*"] }')));
    assert.ok(problems.some((p) => /^target "wide": namespaces\.allow is "\*", which covers "sts-a", the state namespace of target a on the same cluster .*list this target's namespaces instead of "\*"$/.test(p)), problems.join('\n'));
  });

  it('refuses two targets on one cluster that may resize in one namespace, naming both and the namespaces', () => {
    const problems = configProblems(config(target('a', '{ state: sts-a, allow: [db, cache] }'), target('b', '{ state: sts-b, allow: [cache, db, logs] }')));
    assert.deepEqual(problems.length, 1);
    assert.match(problems[0] ?? '', /^target "a" and target "b" both resize StatefulSets in namespaces db, cache on the same cluster \(the cluster of \/etc\/sts\/kubeconfig\): each could find the same StatefulSet in its Git paths/);
    // "*" shares every namespace the other lists; both "*", every namespace.
    assert.match(configProblems(config(target('a', '{ state: sts-a, allow: ["*"] }'), target('b', '{ state: sts-a, allow: [db] }')))[0] ?? '', /target "a" and target "b" both resize StatefulSets in namespace db on the same cluster/);
    assert.match(configProblems(config(target('a', '{ state: sts-a, allow: ["*"] }'), target('b', '{ state: sts-a, allow: ["*"] }')))[0] ?? '', /both resize StatefulSets in every namespace \(both allow "\*"\)/);
    // Two EKS targets without a roleArn reach one account, the function's own: one cluster.
    const own = 'eks: { name: prod, region: eu-west-1 }';
    assert.match(configProblems(config(target('a', '{ state: sts-a, allow: [db] }', own), target('b', '{ state: sts-b, allow: [db] }', own)))[0] ?? '', /target "a" and target "b" both resize StatefulSets in namespace db on the same cluster \(EKS cluster prod in eu-west-1\)/);
    // Other clusters, or other namespaces, are fine.
    assert.equal(parseConfig(config(target('a', '{ state: sts-a, allow: [db] }'), target('b', '{ state: sts-b, allow: [db] }', 'kubeconfig: { path: ./other }')), 't', '/').targets.length, 2);
    assert.equal(parseConfig(config(target('a', '{ state: sts-a, allow: [db] }'), target('b', '{ state: sts-b, allow: [cache] }')), 't', '/').targets.length, 2);
  });

  it('accepts allow: ["*"] beside a state namespace (the engine keeps "*" off it)', () => {
    const [prod] = parseConfig(config(target('prod', '{ allow: ["*"] }')), 't', '/').targets;
    assert.deepEqual(prod?.namespaces, { default: 'default', state: 'sts-volume-gitops', allow: ['*'] });
  });
});
