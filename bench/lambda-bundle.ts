// The shipped Lambda bundle: its size and how long a cold Node 22 process takes to import it (the init phase's share).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildLambdaBundle } from '../infra/lambda-bundle.ts';
import { sandboxConfig } from '../functions/cli/sandbox-command.ts';

const run = promisify(execFile);

export interface BundleFigures {
  bytes: number;
  coldImportMs: number;
}

export async function benchLambdaBundle(table: (rows: Array<[string, string | number]>) => void, imports = 5): Promise<BundleFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-bench-bundle-'));
  try {
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(join(dir, 'kubeconfig'), 'http://127.0.0.1:1', 'GITHUB_TOKEN'));
    const started = performance.now();
    const bundle = await buildLambdaBundle({ outdir: join(dir, 'asset'), configFile });
    const buildMs = performance.now() - started;
    const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(bundle.file).href)}); process.stdout.write(String(performance.now() - t));`;
    const samples: number[] = [];
    for (let i = 0; i < imports; i++) {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
      samples.push(Number(stdout));
    }
    samples.sort((a, b) => a - b);
    const coldImportMs = samples[Math.floor(samples.length / 2)] ?? 0;
    process.stdout.write('\nLambda bundle (infra/lambda-bundle.ts, as the stack builds it):\n');
    table([
      ['bundle size (MiB)', (bundle.bytes / 1024 / 1024).toFixed(2)],
      ['esbuild time (ms)', buildMs.toFixed(0)],
      [`cold import in a new Node ${process.versions.node} process, median of ${imports} (ms)`, coldImportMs.toFixed(0)],
    ]);
    return { bytes: bundle.bytes, coldImportMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
