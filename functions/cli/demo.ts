// `npm start`: the whole story on the embedded sandboxes. Both are seeded from examples/, a config points at them,
// and passes run (advancing the simulated cluster between passes) until everything converges, printing a timeline.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox } from '../../sandbox/kube/index.ts';
import { parseConfig } from '../domain/config.ts';
import { openTarget } from '../app/open-target.ts';
import { defaultTiming } from '../app/run-targets.ts';
import { runPass, type PassReport } from '../engine/run-pass.ts';
import { renderPassReport } from './render-report.ts';
import { sandboxConfig } from './sandbox-command.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const maxPasses = 40;
const ticksBetweenPasses = 2;

export async function runDemo(print: (text: string) => void = (t) => process.stdout.write(`${t}\n`)): Promise<number> {
  const workDir = await mkdtemp(join(tmpdir(), 'sts-volume-gitops-demo-'));
  const kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(workDir, 'kube') });
  const github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), owner: 'acme', repo: 'platform-gitops', workDir: join(workDir, 'github') });
  try {
    const configText = sandboxConfig(kube.kubeconfigPath, github.url, 'DEMO_GITHUB_TOKEN');
    const configPath = join(workDir, 'config.yaml');
    await writeFile(configPath, configText);
    const config = parseConfig(configText, configPath, workDir);
    const targetConfig = config.targets[0];
    if (!targetConfig) throw new Error('demo config has no target');
    const opened = await openTarget(targetConfig, { env: { DEMO_GITHUB_TOKEN: github.token } });

    print('sts-volume-gitops demo');
    print(`  Kubernetes sandbox: ${kube.url} (kubeconfig ${kube.kubeconfigPath})`);
    print(`  GitHub sandbox:     ${github.url}/repos/${github.owner}/${github.repo}`);
    print(`  config:             ${configPath}\n`);

    const plan = await runPass({ target: opened.target, git: opened.git, cluster: opened.cluster, mode: 'plan', holderIdentity: 'demo', timing: defaultTiming });
    print(renderPassReport(plan));
    print('');

    let last: PassReport | undefined;
    for (let pass = 1; pass <= maxPasses; pass++) {
      const timeline: string[] = [];
      last = await runPass({
        target: opened.target, git: opened.git, cluster: opened.cluster, mode: 'apply', holderIdentity: 'demo',
        timing: { ...defaultTiming, maxWaitMs: 0, sleep: () => Promise.resolve() },
        onEvent: (line) => timeline.push(line),
      });
      const progress = last.statefulSets.map((s) => `${s.namespace}/${s.name} ${s.outcome} [${s.templates.map((t) => `${t.templateName} ${t.readyReplicas}/${t.replicas}@${t.desiredSize}`).join(', ')}]`);
      print(`pass ${pass}: ${progress.join('; ')}`);
      for (const line of timeline.filter((l) => !l.startsWith('plan at'))) print(`    ${line}`);
      if (last.statefulSets.every((s) => s.outcome === 'converged' || s.outcome === 'blocked' || s.outcome === 'failed')) break;
      kube.tick(ticksBetweenPasses);
    }
    if (last) {
      print('');
      print(renderPassReport(last));
    }
    return 0;
  } finally {
    await kube.close();
    await github.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  runDemo().then((code) => { process.exitCode = code; }, (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
