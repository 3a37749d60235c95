// The Lambda bundles, one per entry point: each one's size and how long a cold Node 22 process takes to import it
// (the init phase's share).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildLambdaBundle, lambdaBundle, lambdaEntries } from '../infra/lambda-bundle.ts';
import { sandboxConfig } from '../functions/cli/sandbox-config.ts';

const run = promisify(execFile);

export interface EntryFigures {
  name: string;
  bytes: number;
  coldImportMs: number;
}

export interface BundleFigures {
  /** Every entry point, built as the stack builds it. */
  entries: EntryFigures[];
  /** The largest bundle and the slowest cold import among them: what the goal row compares. */
  bytes: number;
  coldImportMs: number;
}

/** The shipped entries (dispatcher, worker, webhook) and the single-function scheduler handler. */
const entries: Record<string, string> = { ...lambdaEntries, handler: lambdaBundle.entry };

export async function benchLambdaBundle(table: (rows: Array<[string, string | number]>) => void, imports = 5): Promise<BundleFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-bench-bundle-'));
  try {
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(join(dir, 'kubeconfig'), 'http://127.0.0.1:1', 'GITHUB_TOKEN'));
    const figures: EntryFigures[] = [];
    const rows: Array<[string, string | number]> = [];
    for (const [name, entry] of Object.entries(entries)) {
      const bundle = await buildLambdaBundle({ outdir: join(dir, name), configFile, entry });
      const coldImportMs = await medianColdImportMs(bundle.file, dir, imports);
      figures.push({ name, bytes: bundle.bytes, coldImportMs });
      rows.push([`${name}: size (MB, MiB)`, `${(bundle.bytes / 1e6).toFixed(2)}, ${(bundle.bytes / 1024 / 1024).toFixed(2)}`]);
      rows.push([`${name}: cold import, median of ${imports} (ms)`, coldImportMs.toFixed(0)]);
    }
    const empty = join(dir, 'empty.mjs');
    await writeFile(empty, 'export {};\n');
    rows.push([`an empty module, for comparison (ms)`, (await medianColdImportMs(empty, dir, imports)).toFixed(0)]);
    process.stdout.write(`\nLambda bundles (infra/lambda-bundle.ts, as the stack builds them; cold import in a new Node ${process.versions.node} process):\n`);
    table(rows);
    return { entries: figures, bytes: Math.max(...figures.map((f) => f.bytes)), coldImportMs: Math.max(...figures.map((f) => f.coldImportMs)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How long `import()` of the file takes in a fresh Node process (the Lambda init phase's share), median of `imports`. */
async function medianColdImportMs(file: string, cwd: string, imports: number): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const samples: number[] = [];
  for (let i = 0; i < imports; i++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd });
    samples.push(Number(stdout));
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}
