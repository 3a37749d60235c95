// Processes that run one pass each and can be SIGKILLed at any moment. Loading the tool takes seconds on a busy
// machine, so one child is always kept warm (loaded and waiting for its job) while another runs.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const childScript = fileURLToPath(new URL('./pass-child.ts', import.meta.url));

export interface PassJob {
  configPath: string;
  env: Record<string, string>;
  holder: string;
}

export interface PassChild {
  /** Runs the job; resolves when the child exits (killed or done). */
  runPass(job: PassJob): Promise<{ killed: boolean; output: string }>;
  kill(): void;
}

export class ChildPool {
  private warm: Promise<PassChild> | undefined;

  /** A loaded child; the next one starts loading at once. */
  async take(): Promise<PassChild> {
    const child = this.warm ?? startChild();
    const next = startChild();
    next.catch(() => undefined); // reported when taken
    this.warm = next;
    return child;
  }

  async close(): Promise<void> {
    const warm = this.warm;
    this.warm = undefined;
    if (warm) (await warm).kill();
  }
}

function startChild(): Promise<PassChild> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', childScript], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<{ killed: boolean }>((resolve) => process_.on('exit', (_code, signal) => resolve({ killed: signal === 'SIGKILL' })));
  let stderr = '';
  process_.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const lines = createInterface({ input: process_.stdout });
  const output: string[] = [];
  return new Promise<PassChild>((resolve, reject) => {
    let ready = false;
    lines.on('line', (line) => {
      if (!ready && line === 'ready') {
        ready = true;
        resolve({
          runPass: async (job) => {
            process_.stdin?.write(`${JSON.stringify(job)}\n`);
            const { killed } = await exited;
            return { killed, output: output.join('\n') || stderr };
          },
          kill: () => {
            process_.kill('SIGKILL');
          },
        });
      } else {
        output.push(line);
      }
    });
    void exited.then(() => {
      if (!ready) reject(new Error(`the pass child exited before it was ready: ${stderr}`));
    });
  });
}
