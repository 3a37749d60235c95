// The kube-prometheus-stack recipe end to end (README's sizeSources example): the Prometheus Operator writes the
// StatefulSet from its Prometheus resource (a `controller: true` ownerReference to monitoring.coreos.com/v1 Prometheus),
// so this tool never deletes, recreates or annotates it: blocked naming the owner by default, PVCs only with `ownedBy`.
// Both sandboxes, the real Octokit and client-node, passes through runTargets.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { statusAnnotation } from '../../functions/engine/report/template-status.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../sandbox/kube/store.ts';
import { applyPass, commentBodies, passUntil, statusesOf, writeFiles } from '../support/passes.ts';

const types = { pod: mustResourceType('v1', 'Pod'), pvc: mustResourceType('v1', 'PersistentVolumeClaim'), sts: mustResourceType('apps/v1', 'StatefulSet') };
const name = 'prometheus-kube-prometheus-stack-prometheus';
const template = `${name}-db`;
const valuesFile = 'apps/monitoring/values-prod.yaml';

function values(size: string): string {
  return `prometheus:
  prometheusSpec:
    retention: 15d
    storageSpec:
      volumeClaimTemplate:
        spec:
          storageClassName: standard
          accessModes: ["ReadWriteOnce"]
          resources:
            requests:
              storage: ${size}
`;
}

/** The StatefulSet as the Prometheus Operator writes it (operator.WithManagingOwner: controller and blockOwnerDeletion). */
function operatorStatefulSet(): Record<string, unknown> {
  const selector = { 'app.kubernetes.io/name': 'prometheus', 'operator.prometheus.io/name': 'kube-prometheus-stack-prometheus', 'operator.prometheus.io/shard': '0' };
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: {
      name, namespace: 'monitoring',
      labels: { ...selector, 'app.kubernetes.io/managed-by': 'prometheus-operator' },
      annotations: { 'prometheus-operator-input-hash': '1234567890' },
      ownerReferences: [{
        apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', name: 'kube-prometheus-stack-prometheus',
        uid: '3b0c7f5e-9d5e-4c4e-9d8a-6a1f0b2c3d4e', controller: true, blockOwnerDeletion: true,
      }],
    },
    spec: {
      serviceName: 'prometheus-operated', replicas: 2, podManagementPolicy: 'Parallel', selector: { matchLabels: selector },
      template: { metadata: { labels: selector }, spec: { containers: [{ name: 'prometheus', image: 'quay.io/prometheus/prometheus:v3.5.0' }] } },
      volumeClaimTemplates: [{ metadata: { name: template }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '50Gi' } } } }],
    },
  };
}

// README's mapping, as written there; `ownedBy` declares the operator.
const mapping = `    prices: { currency: USD, perGiBMonth: { standard: 0.10 } }
    sizeSources:
      - file: ${valuesFile}          # kube-prometheus-stack, release "kube-prometheus-stack"
        path: prometheus.prometheusSpec.storageSpec.volumeClaimTemplate.spec.resources.requests.storage
        statefulSet: monitoring/${name}
        template: ${template}
`;
const declared = `        ownedBy: { kind: Prometheus, group: monitoring.coreos.com }\n`;

describe('kube-prometheus-stack: a StatefulSet the Prometheus Operator controls', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let undeclaredConfig: Config;
  let declaredConfig: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();

  const pass = (config: Config): Promise<TargetRun> => applyPass(config, env);
  const live = (): KubeObject | undefined => kube.store.get(types.sts, 'monitoring', name);
  const templateSize = (): unknown => ((live()?.spec as { volumeClaimTemplates: Array<{ spec: { resources: { requests: { storage: string } } } }> }).volumeClaimTemplates[0]?.spec.resources.requests.storage);
  const pvcSizes = (): Array<{ request: unknown; capacity: unknown }> => [0, 1].map((ordinal) => {
    const pvc = kube.store.get(types.pvc, 'monitoring', `${template}-${name}-${ordinal}`);
    return { request: (pvc?.spec as { resources: { requests: { storage: unknown } } }).resources.requests.storage, capacity: (pvc?.status as { capacity?: { storage?: unknown } }).capacity?.storage };
  });
  const statefulSetWrites = (): string[] => kube.requestLog.writes().filter((e) => e.resource === 'statefulsets').map((e) => `${e.verb} ${e.name ?? ''}`);
  const pods = (): string[] => kube.store.list(types.pod, 'monitoring').map((p) => `${p.metadata.name}:${p.metadata.uid ?? ''}`).sort();

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-operator-owned-'));
    await writeFiles(join(dir, 'repo'), { [valuesFile]: values('50Gi'), 'k8s/README.md': 'manifests live here\n' });
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: { namespaces: ['monitoring'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }], statefulSets: [operatorStatefulSet()] },
    });
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    const base = sandboxConfig(kube.kubeconfigPath, github.url, 'OPERATOR_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [monitoring]');
    undeclaredConfig = parseConfig(base + mapping, 'undeclared.yaml', dir);
    declaredConfig = parseConfig(base + mapping + declared, 'declared.yaml', dir);
    env.OPERATOR_TOKEN = github.token;
    kube.tick(4);
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('gives a pull request asking 7Ei a red check that names the growth limit at the value\'s line', async () => {
    const head = await github.commitFiles({ branch: 'typo', message: 'Typo', files: { [valuesFile]: values('7Ei') } });
    const pr = await github.openPullRequest({ head: 'typo', title: 'Grow Prometheus' });
    await pass(declaredConfig);
    assert.equal(statusesOf(github, head, 'sts-volume-gitops/validate (demo)')[0]?.state, 'failure');
    const [comment] = commentBodies(github, pr);
    assert.match(comment ?? '', /\n {2}- 7Ei is 150,323,855\.36x the current size 50Gi, more than the 5x allowed in one change/);
    assert.match(comment ?? '', new RegExp(`\\[apps/monitoring/values-prod\\.yaml:11\\]\\(https://github\\.com/acme/platform-gitops/blob/${head}/apps/monitoring/values-prod\\.yaml#L11\\)`));
  });

  it('blocks the resize by default, naming the owner, and writes nothing to the StatefulSet', async () => {
    await github.commitFiles({ branch: 'main', message: 'Grow Prometheus storage', files: { [valuesFile]: values('100Gi') } });
    const uid = live()?.metadata.uid;
    kube.requestLog.reset();
    const run = await pass(undeclaredConfig);
    const report = run.report?.statefulSets.find((s) => s.name === name);
    assert.equal(report?.outcome, 'blocked');
    assert.match(report?.templates[0]?.reasons[0] ?? '', /^the StatefulSet is controlled by Prometheus kube-prometheus-stack-prometheus \(monitoring\.coreos\.com\/v1\): its operator writes it/);
    assert.deepEqual(statefulSetWrites(), []);
    kube.tick(3);
    assert.equal(live()?.metadata.uid, uid, 'not recreated (and the garbage collector keeps a set whose owner kind it does not serve)');
    assert.deepEqual(pvcSizes(), [{ request: '50Gi', capacity: '50Gi' }, { request: '50Gi', capacity: '50Gi' }]);
  });

  it('with ownedBy declared, grows only the PVCs: the StatefulSet keeps its uid, template and generation, and no pod restarts', async () => {
    const before = live();
    const podsBefore = pods();
    kube.requestLog.reset();
    const first = await pass(declaredConfig);
    assert.equal(first.report?.cost?.monthlyIncrease, 10, '2 replicas x 50Gi more at 0.10 USD/GiB-month');
    assert.match(first.report?.statefulSets[0]?.notes[0] ?? '', /^written by its operator \(Prometheus kube-prometheus-stack-prometheus/);
    await passUntil(() => pass(declaredConfig), kube, (run) => run.feedback?.progress.some((p) => p.statefulSet === `monitoring/${name}` && p.state === 'success') ?? false);
    const progress = github.state.statuses.filter((st) => st.context === `sts-volume-gitops/demo/monitoring/${name}`);
    assert.equal(progress.at(-1)?.description, '2/2 replicas at 100Gi', 'the finish is reported: the status is kept on a PVC of the set');
    const carrier = kube.store.get(types.pvc, 'monitoring', `${template}-${name}-0`);
    assert.match(carrier?.metadata.annotations?.[statusAnnotation] ?? '', /"readyReplicas":2/);
    assert.deepEqual(pvcSizes(), [{ request: '100Gi', capacity: '100Gi' }, { request: '100Gi', capacity: '100Gi' }]);
    assert.deepEqual(statefulSetWrites(), [], 'never deleted, recreated, updated or annotated');
    const after = live();
    assert.equal(after?.metadata.uid, before?.metadata.uid);
    assert.equal(after?.metadata.generation, before?.metadata.generation);
    assert.equal(after?.metadata.annotations?.[statusAnnotation], undefined);
    assert.equal(templateSize(), '50Gi', 'the template is the operator\'s to rewrite from the Prometheus resource');
    assert.deepEqual(pods(), podsBefore);
  });
});
