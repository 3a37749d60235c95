// The CLI as a person runs it, in child processes: one command to its end, or the long-running `webhook` command,
// read until it listens and stopped with Ctrl-C (SIGINT).
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CliAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx sts-volume-gitops ARGS` (through main.ts, on this Node), with `env` over this process's. */
export async function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliAnswer> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface WebhookCommand {
  /** Its first line on stdout: `listening on URL ...`. */
  listening: string;
  /** What it has logged so far (stderr). */
  stderr: () => string;
  /** Ctrl-C, then its exit code (null when the signal itself ended it) and everything it logged. */
  stop: () => Promise<{ code: number | null; stderr: string }>;
}

export async function startWebhookCommand(args: readonly string[], env: Record<string, string>): Promise<WebhookCommand> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', 'webhook', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const listening = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0] ?? '');
    });
    void exited.then((code) => reject(new Error(`webhook exited with ${String(code)}: ${stderr}`)));
  });
  return { listening, stderr: () => stderr, stop: async () => { child.kill('SIGINT'); return { code: await exited, stderr }; } };
}
