// Sizes in Helm values files (size sources), end to end: both sandboxes, the real Octokit and client-node, passes
// through runTargets. The values files live outside the target's globs; a raw manifest shares the target.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { applyPass, commentBodies, passUntil, statusesOf } from '../support/passes.ts';
import { startSandboxPair } from '../support/sandbox-pair.ts';
import { sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const types = {
  pod: mustResourceType('v1', 'Pod'),
  pvc: mustResourceType('v1', 'PersistentVolumeClaim'),
  sts: mustResourceType('apps/v1', 'StatefulSet'),
};

function victoriaValues(size: string): string {
  return `# victoria-logs-single values (prod)
server:
  retentionPeriod: 30d
  persistentVolume:
    enabled: true
    storageClassName: standard
    size: ${size}  # grow with the ingest rate
  resources: { limits: { memory: 2Gi } }
`;
}

function archiveValues(size: string): string {
  return `primary:
  persistence:
    enabled: true
    size: "${size}"   # quoted on purpose
`;
}

/** A StatefulSet as a chart renders it: what the cluster runs, never in Git. */
function rendered(namespace: string, name: string, template: string, storage: string, storageClass: string, replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/instance': name, 'app.kubernetes.io/managed-by': 'Helm' } },
    spec: {
      serviceName: name, replicas, podManagementPolicy: 'OrderedReady',
      selector: { matchLabels: { 'app.kubernetes.io/instance': name } },
      template: { metadata: { labels: { 'app.kubernetes.io/instance': name } }, spec: { containers: [{ name: 'server', image: 'victoriametrics/victoria-logs:v1.0.0' }] } },
      volumeClaimTemplates: [{ metadata: { name: template }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: storageClass, resources: { requests: { storage } } } }],
    },
  };
}

function manifest(name: string, storage: string): string {
  return statefulSetManifest({ name, storage, replicas: 1 });
}

const mappings = `    sizeSources:
      - { file: apps/victoria/values.yaml, path: server.persistentVolume.size, statefulSet: logs/victoria-logs, template: server-volume }
      - { file: apps/archive/values.yaml, path: primary.persistence.size, statefulSet: logs/archive, template: data }
`;

describe('sizes in Helm values files (size sources)', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  let configText: string;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const initial: Record<string, string> = {
    'apps/victoria/values.yaml': victoriaValues('10Gi'),
    'apps/archive/values.yaml': archiveValues('20Gi'),
    'apps/broken/values.yaml': 'server:\n  persistentVolume:\n    size: lots\n',
    'k8s/pg.yaml': manifest('pg', '10Gi'),
    'k8s/twice.yaml': manifest('twice', '10Gi'),
  };

  const pass = (chosen: Config = config): Promise<TargetRun> => applyPass(chosen, env);
  const converge = (until: (run: TargetRun) => boolean): Promise<TargetRun> => passUntil(pass, kube, until);

  const statusesFor = (sha: string, context: string): ReturnType<typeof statusesOf> => statusesOf(github, sha, context);

  const comments = (pr: number): string[] => commentBodies(github, pr);

  function pods(namespace: string): string[] {
    return kube.store.list(types.pod, namespace).map((p) => `${p.metadata.name}:${p.metadata.uid ?? ''}:${p.metadata.labels?.['controller-revision-hash'] ?? ''}`).sort();
  }

  function storage(object: KubeObject | undefined): { request: unknown; capacity: unknown } {
    const spec = object?.spec as { resources?: { requests?: { storage?: unknown } } } | undefined;
    const status = object?.status as { capacity?: { storage?: unknown } } | undefined;
    return { request: spec?.resources?.requests?.storage, capacity: status?.capacity?.storage };
  }

  before(async () => {
    ({ kube, github, config, configText } = await startSandboxPair({
      name: 'size-sources', files: initial, tokenEnv: 'SIZE_SOURCES_TOKEN', env, allow: ['db', 'logs'], targetLines: mappings,
      seed: {
        namespaces: ['logs', 'db'],
        storageClasses: [
          { name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } },
          { name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '50Gi' } },
        ],
        statefulSets: [
          rendered('logs', 'victoria-logs', 'server-volume', '10Gi', 'standard', 2),
          rendered('logs', 'archive', 'data', '20Gi', 'capped', 1),
          load(initial['k8s/pg.yaml'] ?? ''), load(initial['k8s/twice.yaml'] ?? ''),
        ],
      },
    }));
    kube.tick(4);
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  let growPr = 0;

  it('reads the mapped value outside the globs next to a raw manifest, and changes nothing while Git matches the cluster', async () => {
    const run = await pass();
    assert.deepEqual(run.report?.manifestErrors, []);
    assert.deepEqual(run.report?.statefulSets.map((s) => `${s.namespace}/${s.name} ${s.outcome} ${s.templates.map((t) => `${t.templateName}@${t.desiredSize}`).join(',')}`).sort(), [
      'db/pg converged data@10Gi', 'db/twice converged data@10Gi', 'logs/archive converged data@20Gi', 'logs/victoria-logs converged server-volume@10Gi',
    ]);
    const victoria = run.report?.statefulSets.find((s) => s.name === 'victoria-logs');
    assert.deepEqual(victoria?.templates[0]?.storageLocation, { path: 'apps/victoria/values.yaml', line: 7, column: 11 });
  });

  it('gives a PR that edits the values file a green check with the plan', async () => {
    const head = await github.commitFiles({ branch: 'grow-logs', message: 'Grow victoria-logs to 20Gi', files: { 'apps/victoria/values.yaml': victoriaValues('20Gi') } });
    growPr = await github.openPullRequest({ head: 'grow-logs', title: 'Grow victoria-logs' });
    await pass();
    assert.deepEqual(statusesFor(head, 'sts-volume-gitops/validate (demo)'), [{ state: 'success', description: 'logs/victoria-logs: 2 PVCs grow 10Gi → 20Gi' }]);
    const [comment] = comments(growPr);
    assert.match(comment ?? '', /\| logs\/victoria-logs \| server-volume \| 2 \| 10Gi → 20Gi \| standard \(expandable\) \| no quota \| ✅ will resize \|/);
    assert.doesNotMatch(comment ?? '', /db\/pg/, 'only what the PR touches is planned');
  });

  it('gives a PR that shrinks the value a red check linking to the value\'s line in the values file', async () => {
    const head = await github.commitFiles({ branch: 'shrink-logs', message: 'Shrink', files: { 'apps/victoria/values.yaml': victoriaValues('5Gi') } });
    const pr = await github.openPullRequest({ head: 'shrink-logs', title: 'Shrink victoria-logs' });
    await pass();
    const [status] = statusesFor(head, 'sts-volume-gitops/validate (demo)');
    assert.equal(status?.state, 'failure');
    assert.match(status?.description ?? '', /^logs\/victoria-logs server-volume: 5Gi is not above the current capacity of server-volume-victoria-logs-0 \(10Gi\)/);
    assert.match(comments(pr)[0] ?? '', new RegExp(`\\[apps/victoria/values\\.yaml:7\\]\\(https://github\\.com/acme/platform-gitops/blob/${head}/apps/victoria/values\\.yaml#L7\\)`));
  });

  it('after merge, converges the rendered StatefulSet with no pod restarted and reports on the commit that changed the value', async () => {
    const podsBefore = pods('logs');
    const introducing = github.state.pulls.find((p) => p.number === growPr)?.headSha;
    await github.mergePullRequest(growPr);
    await converge((run) => run.feedback?.progress.some((p) => p.statefulSet === 'logs/victoria-logs' && p.state === 'success') ?? false);
    const live = kube.store.get(types.sts, 'logs', 'victoria-logs');
    const templates = (live?.spec as { volumeClaimTemplates: KubeObject[] }).volumeClaimTemplates;
    assert.equal(storage(templates[0]).request, '20Gi', 'the live template has the new size');
    for (const ordinal of [0, 1]) {
      assert.deepEqual(storage(kube.store.get(types.pvc, 'logs', `server-volume-victoria-logs-${ordinal}`)), { request: '20Gi', capacity: '20Gi' });
    }
    assert.deepEqual(pods('logs'), podsBefore, 'no pod was restarted');
    const statuses = github.state.statuses.filter((s) => s.context === 'sts-volume-gitops/demo/logs/victoria-logs');
    assert.ok(statuses.length > 0 && statuses.every((s) => s.sha === introducing), `on the commit that changed the value: ${JSON.stringify(statuses)}`);
    assert.equal(statuses.at(-1)?.description, '2/2 replicas at 20Gi');
    const labels = live?.metadata.labels ?? {};
    assert.equal(labels['app.kubernetes.io/managed-by'], 'Helm', 'the rendered object is kept as the chart made it');
  });

  it('opens a recovery PR after a terminal failure that changes only the value\'s bytes in the values file', async () => {
    await github.commitFiles({ branch: 'main', message: 'Grow the archive', files: { 'apps/archive/values.yaml': archiveValues('100Gi') } });
    let run: TargetRun | undefined;
    for (let i = 0; i < 10 && !run?.recovery?.outcomes.some((o) => o.action === 'opened'); i++) {
      run = await pass();
      kube.tick(2);
    }
    const outcome = run?.recovery?.outcomes.find((o) => o.key === 'logs/archive/data');
    assert.equal(outcome?.action, 'opened', run?.recovery?.outcomes.map((o) => `${o.key} ${o.action} ${o.reason ?? ''}`).join('; '));
    const pr = github.state.pulls.find((p) => p.state === 'open' && p.head === 'sts-volume-gitops/recover/demo/logs/archive/data');
    assert.equal(pr?.title, 'Recover logs/archive data: 100Gi → 50Gi (expansion failed)');
    const before = await github.readFile('main', 'apps/archive/values.yaml');
    const proposed = await github.readFile(pr?.head ?? '', 'apps/archive/values.yaml');
    assert.equal(proposed, before?.replace('size: "100Gi"   # quoted', 'size: "50Gi"   # quoted'), 'only the value\'s bytes change');
    assert.match(outcome?.diff ?? '', /^-\s+size: "100Gi" {3}# quoted on purpose\n\+\s+size: "50Gi" {3}# quoted on purpose$/m);
    assert.equal(await github.readFile(pr?.head ?? '', 'apps/victoria/values.yaml'), await github.readFile('main', 'apps/victoria/values.yaml'));
  });

  it('reports a missing path, a non-quantity value and a set named twice as located errors, and the rest of the pass goes on', async () => {
    const broken = parseConfig(configText
      .replace('name: demo', 'name: broken')
      .replace('pullRequests: { validate: true, recovery: true }', 'pullRequests: { validate: false, recovery: false }')
      .replace(mappings, `    sizeSources:
      - { file: apps/victoria/values.yaml, path: server.persistentVolume.size, statefulSet: logs/victoria-logs, template: server-volume }
      - { file: apps/victoria/values.yaml, path: server.persistence.size, statefulSet: logs/archive, template: data }
      - { file: apps/broken/values.yaml, path: server.persistentVolume.size, statefulSet: logs/other, template: data }
      - { file: apps/victoria/values.yaml, path: server.persistentVolume.size, statefulSet: db/twice, template: data }
      - { file: apps/gone/values.yaml, path: size, statefulSet: logs/gone, template: data }
`), 'broken.yaml', '/');
    const run = await pass(broken);
    const errors = run.report?.manifestErrors.map((e) => `${e.path}:${e.line}: ${e.message}`) ?? [];
    assert.deepEqual(errors.map((e) => e.slice(0, e.indexOf(': '))), [
      'apps/broken/values.yaml:3', 'apps/gone/values.yaml:1', 'apps/victoria/values.yaml:2', 'apps/victoria/values.yaml:7', 'k8s/twice.yaml:1',
    ]);
    assert.match(errors[0] ?? '', /size source logs\/other data \(apps\/broken\/values\.yaml server\.persistentVolume\.size\): invalid quantity "lots"/);
    assert.match(errors[1] ?? '', /the file does not exist at this commit/);
    assert.match(errors[2] ?? '', /server has no key "persistence" \(the path server\.persistence\.size is missing\)/);
    assert.match(errors[3] ?? '', /StatefulSet db\/twice is sized by this value .* and defined by the manifest at k8s\/twice\.yaml:1/);
    assert.match(errors[4] ?? '', /StatefulSet db\/twice is defined by this manifest and sized by the size source at apps\/victoria\/values\.yaml:7/);
    assert.deepEqual(run.report?.statefulSets.map((s) => `${s.namespace}/${s.name} ${s.outcome}`).sort(), ['db/pg converged', 'logs/victoria-logs converged']);
  });
});
