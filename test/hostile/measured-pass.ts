// One pass of a configuration (runTargets, apply mode) in a process of its own, so that its peak RSS is the pass's own
// and not the sandboxes' (they stay in the test's process). The job is the argument, as JSON: { configPath, env }.
// Prints one JSON line: the run's outcome and error, its feedback failures, its located errors, and the peak RSS (KiB).
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { runTargets } from '../../functions/app/run-targets.ts';
import { parseConfig } from '../../functions/domain/config.ts';

export interface MeasuredPass {
  outcome: string | undefined;
  error: string | undefined;
  failures: Array<{ item: string; error: string }>;
  manifestErrors: Array<{ path: string; line: number; message: string }>;
  maxRssKiB: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as { configPath: string; env: Record<string, string> };
const config = parseConfig(await readFile(job.configPath, 'utf8'), job.configPath, dirname(job.configPath));
const [run] = await runTargets(config, {
  mode: 'apply', holderIdentity: 'measured-pass', env: job.env,
  timing: { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() },
});
const measured: MeasuredPass = {
  outcome: run?.report?.outcome, error: run?.error, failures: run?.feedback?.failures ?? [],
  manifestErrors: (run?.report?.manifestErrors ?? []).map(({ path, line, message }) => ({ path, line, message })),
  maxRssKiB: process.resourceUsage().maxRSS,
};
// Connections kept alive by the clients would hold the process open: it is done.
process.stdout.write(`${JSON.stringify(measured)}\n`, () => process.exit(0));
