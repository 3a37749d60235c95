// One pass in a process of its own, so the campaign can SIGKILL it at any request: loads everything, says `ready`,
// reads one job line from stdin ({ configPath, env, holder }), runs the pass through runTargets and prints the outcome.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { runTargets } from '../../functions/app/run-targets.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { playOctokitWaitsFaster } from './play-time-faster.ts';

playOctokitWaitsFaster();

interface Job {
  configPath: string;
  env: Record<string, string>;
  holder: string;
}

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  const job = JSON.parse(line) as Job;
  const config = parseConfig(await readFile(job.configPath, 'utf8'), job.configPath, dirname(job.configPath));
  const [run] = await runTargets(config, {
    mode: 'apply', holderIdentity: job.holder, env: job.env,
    timing: { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() },
  });
  process.stdout.write(`${JSON.stringify({ outcome: run?.report?.outcome, error: run?.error })}\n`);
  break;
}
lines.close();
