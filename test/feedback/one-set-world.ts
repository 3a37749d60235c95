// A small world for feedback tests: one StatefulSet `db/pg` (1 replica, `data` on the default expandable class) in
// both sandboxes, its manifest at `k8s/pg.yaml` in the repository.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

export const pgManifest = (storage: string): string => `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: pg, namespace: db }
spec:
  serviceName: pg
  replicas: 1
  selector: { matchLabels: { app: pg } }
  template:
    metadata: { labels: { app: pg } }
    spec: { containers: [{ name: main, image: "busybox:1.36" }] }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: ${storage} } }
`;

export async function startOneSetWorld(prefix: string): Promise<{ dir: string; kube: KubeSandbox; github: GitHubSandbox }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(dir, 'repo', 'k8s'), { recursive: true });
  await writeFile(join(dir, 'repo', 'k8s', 'pg.yaml'), pgManifest('10Gi'));
  const kube = await startKubeSandbox({
    workDir: join(dir, 'kube'),
    seed: { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [load(pgManifest('10Gi'))] },
  });
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  return { dir, kube, github };
}
