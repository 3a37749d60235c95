// A temporary folder that does not outlive its command: removed when the work ends, and when the process is
// interrupted (Ctrl-C's SIGINT, or SIGTERM), which would otherwise end it without running any `finally`.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const signals = ['SIGINT', 'SIGTERM'] as const;

/** `use` gets a new folder under the system's temporary directory (`$TMPDIR`), named `prefix` + random characters. */
export async function withTemporaryFolder<T>(prefix: string, use: (folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const s of signals) process.removeListener(s, onSignal);
    // Synchronous: nothing else of this process runs between the removal and the end.
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
    // Ended by the signal itself, as without this handler, so the shell or parent sees what happened.
    process.kill(process.pid, signal);
  };
  for (const s of signals) process.once(s, onSignal);
  try {
    return await use(folder);
  } finally {
    for (const s of signals) process.removeListener(s, onSignal);
    await rm(folder, { recursive: true, force: true, maxRetries: 3 });
  }
}
