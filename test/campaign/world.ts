// A small world for one campaign schedule: both sandboxes (in this process, so they outlive a killed pass), a GitOps
// repository with two StatefulSets, a config file whose kubeconfig goes through the PVC patch recorder, and the Git
// scenario of the schedule (merged and open pull requests) applied the way people would.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, type KubeObject } from '../../sandbox/kube/store.ts';
import { startPvcPatchRecorder, type PvcPatchRecorder } from './pvc-patch-recorder.ts';
import type { Scenario } from './schedule.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';
import { writeFiles } from '../support/passes.ts';

export const types = {
  pod: mustResourceType('v1', 'Pod'),
  pvc: mustResourceType('v1', 'PersistentVolumeClaim'),
  sts: mustResourceType('apps/v1', 'StatefulSet'),
  lease: mustResourceType('coordination.k8s.io/v1', 'Lease'),
};

export const namespace = 'db';
export const statefulSetNames = ['pg', 'wh'] as const;
export const leaseName = 'sts-volume-gitops-demo';
const tokenVariable = 'CAMPAIGN_GITHUB_TOKEN';

export function manifest(name: string, storage: string, storageClass: string, replicas: number): string {
  return statefulSetManifest({ heading: name, name, namespace, storage, storageClass, replicas });
}

const pg = (storage: string): string => manifest('pg', storage, 'standard', 2);
const wh = (storage: string): string => manifest('wh', storage, 'capped', 1);

export interface World {
  kube: KubeSandbox;
  github: GitHubSandbox;
  recorder: PvcPatchRecorder;
  config: Config;
  configPath: string;
  env: Record<string, string>;
  /** The commits that introduced each new size (where progress statuses go), and the open PR's head. */
  commits: { pg?: string; wh?: string; openPrHead?: string };
  /** One pass in this process, as the Lambda runs it; `now` plays its clock (the real one by default). */
  pass(holder: string, now?: () => number): Promise<TargetRun>;
  close(): Promise<void>;
}

export async function startWorld(scenario: Scenario): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-campaign-'));
  const files: Record<string, string> = { 'k8s/pg.yaml': pg('10Gi'), 'k8s/wh.yaml': wh('20Gi') };
  await writeFiles(join(dir, 'repo'), files);
  const kube = await startKubeSandbox({
    workDir: join(dir, 'kube'),
    seed: {
      namespaces: [namespace],
      storageClasses: [
        { name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } },
        { name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '50Gi' } },
      ],
      statefulSets: Object.values(files).map((text) => load(text)),
    },
  });
  kube.tick(3); // pods Running, PVCs bound
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const recorder = await startPvcPatchRecorder(kube);
  const kubeconfigPath = join(dir, 'kubeconfig-through-recorder');
  await writeFile(kubeconfigPath, (await readFile(kube.kubeconfigPath, 'utf8')).replace(kube.url, recorder.url), { mode: 0o600 });
  const configPath = join(dir, 'config.yaml');
  const configText = sandboxConfig(kubeconfigPath, github.url, tokenVariable).replace('allow: [db, cache, analytics]', `allow: [${namespace}]`);
  await writeFile(configPath, configText);
  const config = parseConfig(configText, configPath, dir);
  const env = { [tokenVariable]: github.token, ...sandboxRecordKeyEnv() };

  const commits: World['commits'] = {};
  if (scenario.openPr) {
    commits.openPrHead = await github.commitFiles({ branch: 'more-pg', message: 'Grow pg to 30Gi', files: { 'k8s/pg.yaml': pg('30Gi') } });
    await github.openPullRequest({ head: 'more-pg', title: 'Grow pg to 30Gi' });
  }
  if (scenario.growPg) {
    commits.pg = await github.commitFiles({ branch: 'grow-pg', message: 'Grow pg', files: { 'k8s/pg.yaml': pg('20Gi') } });
    await github.mergePullRequest(await github.openPullRequest({ head: 'grow-pg', title: 'Grow pg' }));
  }
  if (scenario.growWh) {
    commits.wh = await github.commitFiles({ branch: 'grow-wh', message: 'Grow wh', files: { 'k8s/wh.yaml': wh('100Gi') } });
    await github.mergePullRequest(await github.openPullRequest({ head: 'grow-wh', title: 'Grow wh' }));
  }
  github.requestLog.reset();
  kube.requestLog.reset();
  return {
    kube, github, recorder, config, configPath, env, commits,
    pass: async (holder, now) => {
      const [run] = await runTargets(config, {
        mode: 'apply', holderIdentity: holder, env,
        timing: { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() }, ...(now ? { now } : {}),
      });
      if (!run) throw new Error('runTargets returned no run for the target');
      return run;
    },
    close: async () => {
      await recorder.close();
      await kube.close();
      await github.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `name:uid:controller-revision-hash` of every pod: a restarted pod changes its uid, a rolled one its hash. */
export function podIdentities(world: World): string[] {
  return world.kube.store.list(types.pod, namespace)
    .map((p: KubeObject) => `${p.metadata.name}:${p.metadata.uid ?? ''}:${p.metadata.labels?.['controller-revision-hash'] ?? ''}`).sort();
}

/** Plays the passage of time past a dead holder's Lease (15 s): the Lease's renewTime moves an hour back. */
export function expireLease(world: World): boolean {
  const lease = world.kube.store.get(types.lease, 'default', leaseName);
  const spec = lease?.spec as { holderIdentity?: string | null; renewTime?: string | null } | undefined;
  if (!lease || !spec?.holderIdentity) return false;
  const past = new Date(Date.now() - 3_600_000).toISOString().replace('Z', '000Z');
  world.kube.store.replace(types.lease, { ...lease, spec: { ...spec, renewTime: past, acquireTime: past } });
  return true;
}
