// The benchmark's sandboxes, in a child process of their own: the controller process then holds only the controller,
// so its CPU time and peak RSS are the controller's alone. The parent drives this process over IPC (sandbox-client.ts).
import { startGitHubSandbox, type GitHubSandbox } from '../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../sandbox/kube/index.ts';

export type HostRequest =
  | { op: 'startKube'; seed: unknown; latencyMs: number }
  | { op: 'startGitHub'; files: Record<string, string>; latencyMs: number }
  | { op: 'commitGitHub'; files: Record<string, string> }
  | { op: 'tick'; count: number }
  | { op: 'resetLogs' }
  | { op: 'logs' }
  | { op: 'close' };

export interface HostLogs {
  kubeCounts: Record<string, number>;
  kubeCalls: number;
  kubeWrites: number;
  githubCounts: Record<string, number>;
  githubCalls: number;
  /** Queries the Kubernetes sandbox's Prometheus API answered (the usage reads). */
  prometheusQueries: number;
}

let kube: KubeSandbox | undefined;
let github: GitHubSandbox | undefined;

async function handle(request: HostRequest): Promise<unknown> {
  switch (request.op) {
    case 'startKube': {
      await kube?.close();
      kube = await startKubeSandbox({ seed: request.seed });
      if (request.latencyMs > 0) kube.faults.add({ latencyMs: request.latencyMs });
      if (request.latencyMs > 0) kube.prometheus.faults.add({ latencyMs: request.latencyMs });
      return { kubeconfigPath: kube.kubeconfigPath, prometheusUrl: kube.prometheus.url };
    }
    case 'startGitHub': {
      await github?.close();
      github = await startGitHubSandbox();
      await github.commitFiles({ branch: github.defaultBranch, message: 'bench manifests', files: request.files });
      if (request.latencyMs > 0) github.faults.add({ latencyMs: request.latencyMs });
      return { url: github.url, token: github.token, owner: github.owner, repo: github.repo, branch: github.defaultBranch };
    }
    case 'commitGitHub': {
      if (!github) throw new Error('no GitHub sandbox');
      return github.commitFiles({ branch: github.defaultBranch, message: 'bench change', files: request.files });
    }
    case 'tick':
      kube?.tick(request.count);
      return null;
    case 'resetLogs':
      kube?.requestLog.reset();
      kube?.prometheus.queries.splice(0);
      github?.requestLog.reset();
      return null;
    case 'logs': {
      const logs: HostLogs = {
        kubeCounts: kube?.requestLog.countsByVerbAndResource() ?? {},
        kubeCalls: kube?.requestLog.entries.length ?? 0,
        kubeWrites: kube?.requestLog.writes().length ?? 0,
        githubCounts: github?.requestLog.countsByOperation() ?? {},
        githubCalls: github?.requestLog.entries.length ?? 0,
        prometheusQueries: kube?.prometheus.queries.length ?? 0,
      };
      return logs;
    }
    case 'close':
      await kube?.close();
      await github?.close();
      kube = undefined;
      github = undefined;
      setImmediate(() => process.exit(0));
      return null;
  }
}

process.on('message', (message: { id: number; request: HostRequest }) => {
  handle(message.request).then(
    (result) => process.send?.({ id: message.id, result }),
    (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
