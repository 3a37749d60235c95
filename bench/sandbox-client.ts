// The controller side of sandbox-host.ts: starts the host as a child process and sends it requests over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostLogs, HostRequest } from './sandbox-host.ts';

export class SandboxHost {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor() {
    // The controller may run bundled (run.ts builds it with esbuild, as the Lambda is): the host then is found by the
    // path run.ts passes, and runs under tsx from the repository.
    const hostPath = process.env.BENCH_SANDBOX_HOST ?? fileURLToPath(new URL('./sandbox-host.ts', import.meta.url));
    // BENCH_SANDBOX_CPU_PROF=dir writes the sandboxes' CPU profile there when the host exits (`node --cpu-prof`).
    const profileDir = process.env.BENCH_SANDBOX_CPU_PROF;
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    this.child = fork(hostPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--import', 'tsx', ...profile], cwd: process.env.BENCH_REPO_ROOT ?? process.cwd() });
    this.child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(`sandbox host: ${message.error}`));
      else waiter?.resolve(message.result);
    });
    this.child.on('exit', (code) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`sandbox host exited with ${code ?? '?'}`));
      this.pending.clear();
    });
  }

  request<T>(request: HostRequest): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, request });
    });
  }

  startKube(seed: unknown, latencyMs: number): Promise<{ kubeconfigPath: string; prometheusUrl: string }> {
    return this.request({ op: 'startKube', seed, latencyMs });
  }

  startGitHub(files: Record<string, string>, latencyMs: number): Promise<{ url: string; token: string; owner: string; repo: string; branch: string }> {
    return this.request({ op: 'startGitHub', files, latencyMs });
  }

  tick(count: number): Promise<void> {
    return this.request({ op: 'tick', count });
  }

  resetLogs(): Promise<void> {
    return this.request({ op: 'resetLogs' });
  }

  logs(): Promise<HostLogs> {
    return this.request({ op: 'logs' });
  }

  async close(): Promise<void> {
    await this.request({ op: 'close' }).catch(() => undefined);
  }
}
