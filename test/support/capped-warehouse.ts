// The world the recovery tests share: analytics/wh on a StorageClass whose driver refuses anything above 50Gi for good
// (ControllerResizeInfeasible), in both sandboxes, its repository seeded at 20Gi, and the sandbox's configuration for it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { statefulSetManifest } from './statefulset-manifest.ts';
import { writeFiles } from './passes.ts';

export interface CappedWarehouse {
  kube: KubeSandbox;
  github: GitHubSandbox;
  dir: string;
  /** The configuration's text (the token read from `tokenEnv`). */
  configText: string;
  /** The record key and the token, for passes and the CLI. */
  env: Record<string, string>;
  /** analytics/wh at `storage`, as its manifest reads in Git. */
  manifest(storage: string): string;
  close(): Promise<void>;
}

export async function startCappedWarehouse(options: { replicas: number; tokenEnv: string; storageComment?: string; extraConfig?: string }): Promise<CappedWarehouse> {
  const manifest = (storage: string): string => statefulSetManifest({
    name: 'wh', namespace: 'analytics', storage, storageClass: 'capped', replicas: options.replicas,
    ...(options.storageComment !== undefined ? { storageComment: options.storageComment } : {}),
  });
  const dir = await mkdtemp(join(tmpdir(), 'sts-capped-'));
  await writeFiles(join(dir, 'repo'), { 'k8s/wh.yaml': manifest('20Gi') });
  const kube = await startKubeSandbox({
    workDir: join(dir, 'kube'),
    seed: {
      namespaces: ['analytics'],
      storageClasses: [{ name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '50Gi' } }],
      statefulSets: [load(manifest('20Gi'))],
    },
  });
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const configText = sandboxConfig(kube.kubeconfigPath, github.url, options.tokenEnv).replace('allow: [db, cache, analytics]', 'allow: [analytics]') + (options.extraConfig ?? '');
  return {
    kube, github, dir, configText, env: { ...sandboxRecordKeyEnv(), [options.tokenEnv]: github.token }, manifest,
    close: async () => {
      await kube.close();
      await github.close();
    },
  };
}
