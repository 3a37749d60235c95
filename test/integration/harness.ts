// An engine under test: the Kubernetes sandbox, the real client-node adapter, and a Git source over a scratch
// directory whose manifests a test rewrites between passes. The engine runs as a user in the group sts-volume-gitops
// with exactly the RBAC manifest `sts-volume-gitops rbac` generates for the harness's target, as on a real cluster.
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { defaultRbacGroup, rbacObjects, type RbacObject, type RbacTarget } from '../../functions/app/rbac-manifest.ts';
import { DirectorySource } from '../../functions/adapters/local/directory-source.ts';
import { runPass, type PassReport, type StatefulSetReport } from '../../functions/engine/run-pass.ts';
import { defaultStateNamespace } from '../../functions/domain/config.ts';
import { RecordKey } from '../../functions/engine/records/authenticity.ts';
import { generateRecordKey } from '../../functions/cli/sandbox-config.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../sandbox/kube/store.ts';

export const types = {
  pod: mustResourceType('v1', 'Pod'),
  pvc: mustResourceType('v1', 'PersistentVolumeClaim'),
  sts: mustResourceType('apps/v1', 'StatefulSet'),
  configMap: mustResourceType('v1', 'ConfigMap'),
  event: mustResourceType('v1', 'Event'),
  lease: mustResourceType('coordination.k8s.io/v1', 'Lease'),
};

export interface StatefulSetSpec {
  name: string;
  namespace?: string;
  replicas?: number;
  policy?: 'OrderedReady' | 'Parallel';
  templates: Record<string, string>;
  storageClass?: string;
  accessModes?: string[];
  /** The volumeAttributesClassName of every template (KEP-3751). */
  volumeAttributesClass?: string;
  /** `spec.persistentVolumeClaimRetentionPolicy` (the server defaults it to Retain/Retain on 1.34). */
  retentionPolicy?: { whenDeleted: 'Retain' | 'Delete'; whenScaled: 'Retain' | 'Delete' };
}

export function statefulSetManifest(spec: StatefulSetSpec): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { name: spec.name, namespace: spec.namespace ?? 'db', labels: { app: spec.name } },
    spec: {
      serviceName: spec.name, replicas: spec.replicas ?? 3, podManagementPolicy: spec.policy ?? 'OrderedReady',
      selector: { matchLabels: { app: spec.name } },
      template: { metadata: { labels: { app: spec.name } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      volumeClaimTemplates: Object.entries(spec.templates).map(([name, storage]) => ({
        metadata: { name },
        spec: {
          accessModes: spec.accessModes ?? ['ReadWriteOnce'], storageClassName: spec.storageClass ?? 'standard', resources: { requests: { storage } },
          ...(spec.volumeAttributesClass !== undefined ? { volumeAttributesClassName: spec.volumeAttributesClass } : {}),
        },
      })),
      ...(spec.retentionPolicy ? { persistentVolumeClaimRetentionPolicy: spec.retentionPolicy } : {}),
    },
  };
}

function withPodSpecExtras(manifest: Record<string, unknown>, extras: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!extras) return manifest;
  const podSpec = ((manifest.spec as { template: { spec: Record<string, unknown> } }).template.spec);
  Object.assign(podSpec, extras);
  return manifest;
}

export interface DriverSeed {
  name: string;
  allowVolumeExpansion?: boolean;
  driver?: Record<string, unknown>;
  default?: boolean;
}

/** The user the engine runs as (in the group the generated manifest binds). */
export const engineUser = 'sts-volume-gitops-under-test';

export interface Harness {
  kube: KubeSandbox;
  repoDir: string;
  /** The RBAC objects applied for the engine's identity. */
  rbac: RbacObject[];
  /** A kubeconfig of the engine's identity (for runs through a config file). */
  engineKubeconfigPath: string;
  /** Where the target's Lease and recreation records live (the config's default: a namespace of their own). */
  stateNamespace: string;
  /** The deployment's key the passes sign and check records with. */
  recordKey: RecordKey | undefined;
  writeManifest(spec: StatefulSetSpec, path?: string): Promise<void>;
  /** One pass; `events` collects what it says as it goes (the timeline the CLI and the demo print). */
  pass(options?: { mode?: 'apply' | 'plan'; holder?: string; maxWaitMs?: number; recordKey?: RecordKey | undefined; events?: string[]; now?: () => Date }): Promise<PassReport>;
  /** Passes with `ticks` controller ticks between them until `done` or `maxPasses`. */
  converge(done: (report: PassReport) => boolean, options?: { maxPasses?: number; ticks?: number }): Promise<PassReport>;
  pvcs(namespace?: string): KubeObject[];
  pods(namespace?: string): KubeObject[];
  close(): Promise<void>;
}

export interface HarnessSeed {
  /** The Kubernetes version the sandbox plays (`1.34` by default, `1.26`). */
  version?: string;
  storageClasses?: DriverSeed[];
  statefulSets: StatefulSetSpec[];
  quotas?: unknown[];
  featureGates?: string[];
  /** Plays a cluster newer than client-node: these fields are known to the server only (see KubeSandboxOptions). */
  newerServerFields?: Record<string, string[]>;
  /** Fields added to the pod template of every seeded StatefulSet. */
  podSpecExtras?: Record<string, unknown>;
  /** VolumeAttributesClasses to seed (`{ name, storageClass | driverName, parameters }`, 1.34 only). */
  volumeAttributesClasses?: unknown[];
  /** Changes the generated RBAC objects before they are applied (a test takes a verb away). */
  rbac?: (objects: RbacObject[]) => RbacObject[];
  /** The passes run without a record key (a deployment whose config names none). */
  noRecordKey?: boolean;
  /** The target's `namespaces.allow` (default: the seeded StatefulSets' namespaces). */
  allow?: string[];
  /** The clock of the sandbox and of the passes (default: the real one). */
  now?: () => Date;
  /** The sandbox's kubelet (`{ nodeName, syncFrequencySeconds }`, sandbox/kube/seed.ts). */
  kubelet?: { nodeName?: string; syncFrequencySeconds?: number };
  /** The target's `stalledAfter`, in seconds (default 1h). */
  stalledAfterSeconds?: number;
}

/** A fresh key, as `sts-volume-gitops sandbox` generates one. */
export function generatedRecordKey(): RecordKey {
  return RecordKey.fromText(generateRecordKey(), 'a generated key');
}

export async function startHarness(seed: HarnessSeed): Promise<Harness> {
  const storageClasses = seed.storageClasses ?? [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }];
  const namespaces = [...new Set(seed.statefulSets.map((s) => s.namespace ?? 'db'))];
  const kube = await startKubeSandbox({
    ...(seed.version ? { version: seed.version } : {}),
    ...(seed.featureGates ? { featureGates: seed.featureGates } : {}),
    ...(seed.newerServerFields ? { newerServerFields: seed.newerServerFields } : {}),
    ...(seed.now ? { now: seed.now } : {}),
    seed: { ...(seed.kubelet ? { kubelet: seed.kubelet } : {}), namespaces, storageClasses, resourceQuotas: seed.quotas ?? [], volumeAttributesClasses: seed.volumeAttributesClasses ?? [], statefulSets: seed.statefulSets.map((s) => withPodSpecExtras(statefulSetManifest(s), seed.podSpecExtras)) },
  });
  const repoDir = await mkdtemp(join(tmpdir(), 'sts-repo-'));
  const allowed = seed.allow ?? namespaces;
  const target: RbacTarget = { name: 'test', namespaces: { default: 'default', state: defaultStateNamespace, allow: allowed } };
  const recordKey = seed.noRecordKey ? undefined : generatedRecordKey();
  const generated = rbacObjects([target]);
  const rbac = seed.rbac ? seed.rbac(structuredClone(generated)) : generated;
  await applyObjects(kube, rbac);
  kube.requestLog.reset(); // the setup's writes are not the engine's
  const { kubeconfigPath: engineKubeconfigPath } = await kube.addIdentity({ name: engineUser, groups: [defaultRbacGroup] });
  const identity = new KubeConfig();
  identity.loadFromFile(engineKubeconfigPath);
  const cluster = new KubeCluster(identity);
  const git = new DirectorySource(repoDir, ['**/*.yaml']);
  const harness: Harness = {
    kube, repoDir, rbac, engineKubeconfigPath, stateNamespace: defaultStateNamespace, recordKey,
    writeManifest: async (spec, path) => {
      const file = join(repoDir, path ?? `${spec.namespace ?? 'db'}/${spec.name}.yaml`);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(statefulSetManifest(spec), null, 2).replace(/^/, '# generated by the test harness\n'));
    },
    pass: (options = {}) => runPass({
      target: {
        name: target.name, globs: ['**/*.yaml'], defaultNamespace: target.namespaces.default, allowedNamespaces: allowed, stateNamespace: defaultStateNamespace,
        ...(seed.stalledAfterSeconds !== undefined ? { stalledAfterSeconds: seed.stalledAfterSeconds } : {}),
      },
      git, cluster, mode: options.mode ?? 'apply', holderIdentity: options.holder ?? 'test-pass',
      ...('recordKey' in options ? (options.recordKey ? { recordKey: options.recordKey } : {}) : recordKey ? { recordKey } : {}),
      timing: { maxWaitMs: options.maxWaitMs ?? 0, pollIntervalMs: 1, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      ...(options.events ? { onEvent: (line: string) => options.events?.push(line) } : {}),
      ...(options.now ? { now: options.now } : seed.now ? { now: seed.now } : {}),
    }),
    converge: async (done, options = {}) => {
      let report: PassReport | undefined;
      for (let i = 0; i < (options.maxPasses ?? 30); i++) {
        report = await harness.pass();
        if (done(report)) return report;
        kube.tick(options.ticks ?? 1);
      }
      throw new Error(`did not converge: ${JSON.stringify(report?.statefulSets.map((s) => [s.name, s.outcome, s.templates.map((t) => t.pvcs.map((p) => p.state))]))}`);
    },
    pvcs: (namespace = 'db') => kube.store.list(types.pvc, namespace),
    pods: (namespace = 'db') => kube.store.list(types.pod, namespace),
    close: () => kube.close(),
  };
  for (const spec of seed.statefulSets) await harness.writeManifest(spec);
  return harness;
}

export function statefulSetReport(report: PassReport, name: string): StatefulSetReport {
  const found = report.statefulSets.find((s) => s.name === name);
  if (!found) throw new Error(`no report for ${name}`);
  return found;
}

export function allConverged(report: PassReport): boolean {
  return report.statefulSets.every((s) => s.outcome === 'converged');
}

export function storageOf(pvc: KubeObject): { request: unknown; capacity: unknown } {
  const spec = pvc.spec as { resources?: { requests?: { storage?: unknown } } } | undefined;
  const status = pvc.status as { capacity?: { storage?: unknown } } | undefined;
  return { request: spec?.resources?.requests?.storage, capacity: status?.capacity?.storage };
}

export function podIdentity(pods: KubeObject[]): string[] {
  return pods.map((p) => `${p.metadata.name}:${p.metadata.uid ?? ''}:${p.metadata.labels?.['controller-revision-hash'] ?? ''}`).sort();
}
