// KEP-1790 cases 3-5 at the tool's level: lowering the size while the controller is still expanding is not acted on,
// and no recovery pull request is opened (nothing failed).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runTargets, type TargetRun } from '../../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { noWaiting } from '../../support/passes.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

function manifest(storage: string): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: lake, namespace: analytics }
spec:
  replicas: 1
  serviceName: lake
  selector: { matchLabels: { app: lake } }
  template: { metadata: { labels: { app: lake } }, spec: { containers: [{ name: main, image: "busybox:1.36" }] } }
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], storageClassName: slow, resources: { requests: { storage: ${storage} } } }
`;
}

describe('lowering the size while an expansion is in progress (KEP-1790 cases 3-5)', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const pass = async (): Promise<TargetRun> => {
    const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting });
    assert.ok(run && run.error === undefined, run?.error);
    return run;
  };
  const pvc = () => kube.store.get(pvcType, 'analytics', 'data-lake-0');

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-inprogress-'));
    await mkdir(join(dir, 'repo', 'k8s'), { recursive: true });
    await writeFile(join(dir, 'repo', 'k8s', 'lake.yaml'), manifest('10Gi'));
    const { load } = await import('js-yaml');
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: { namespaces: ['analytics'], storageClasses: [{ name: 'slow', allowVolumeExpansion: true, driver: { ticksPerPhase: 30 } }], statefulSets: [load(manifest('10Gi'))] },
    });
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'T').replace('allow: [db, cache, analytics]', 'allow: [analytics]')
      // The story grows 10Gi to 100Gi, ten times, on purpose: more than the default growth factor (5) allows.
      .replace('    pullRequests:', '    guardrails: { maxGrowthFactor: 10 }\n    pullRequests:'), 'c.yaml', dir);
    env.T = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('does not patch towards the lower size and opens no recovery PR while the controller works towards 100Gi', async () => {
    await github.commitFiles({ branch: 'main', message: 'Grow lake', files: { 'k8s/lake.yaml': manifest('100Gi') } });
    for (let i = 0; i < 4; i++) {
      await pass();
      kube.tick(1);
    }
    assert.equal((pvc()?.status?.allocatedResourceStatuses as { storage?: string } | undefined)?.storage, 'ControllerResizeInProgress');
    await github.commitFiles({ branch: 'main', message: 'Lower lake to 20Gi', files: { 'k8s/lake.yaml': manifest('20Gi') } });
    let run: TargetRun | undefined;
    for (let i = 0; i < 4; i++) {
      run = await pass();
      kube.tick(1);
    }
    const progress = run?.report?.statefulSets[0]?.templates[0]?.pvcs[0];
    assert.equal(progress?.state, 'in-progress-other-size');
    assert.equal(progress?.message, 'in progress to 100Gi; 20Gi will not be attempted until it ends');
    assert.equal((pvc()?.spec?.resources as { requests: { storage: string } }).requests.storage, '100Gi', 'the PVC was not patched down');
    assert.equal(github.state.pulls.filter((p) => p.head.startsWith('sts-volume-gitops/recover/')).length, 0);
    assert.deepEqual(run?.recovery?.outcomes, []);
  });
});
