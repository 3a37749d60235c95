// The one definition of how the Lambda is bundled: the CDK stack hands these options to NodejsFunction, and tests and
// the benchmark build the same bundle with esbuild's JS API, so the asset that ships is the asset that is tested.
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const lambdaBundle = {
  entry: fileURLToPath(new URL('../functions/lambda/handler.ts', import.meta.url)),
  /** NodejsFunction names an ESM bundle `index.mjs`; the handler is `index.handler`. */
  outfileName: 'index.mjs',
  handler: 'handler',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  // ESM bundles still meet CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  /** Minified (9.3 -> about 3 MiB, a faster cold start); names kept, since errors and logs show class names. */
  minify: true,
  keepNames: true,
  /** Nothing external: the AWS SDK the code was tested with ships in the bundle (the runtime's copy may differ). */
  externalModules: [] as string[],
  /** The tool's configuration, copied next to the bundle; the function finds it through `configEnvironmentVariable`. */
  configFileName: 'config.yaml',
  /** Where Lambda unpacks the asset. */
  taskRoot: '/var/task',
} as const;

/** The entry points the stack ships, one function each: all bundled with the options above. */
export const lambdaEntries = {
  /** Invoked by the schedule: one message per target on the queue. */
  dispatcher: fileURLToPath(new URL('../functions/lambda/dispatcher.ts', import.meta.url)),
  /** The queue's consumer: one pass (or validation) per message. */
  worker: fileURLToPath(new URL('../functions/lambda/worker.ts', import.meta.url)),
  /** Behind the Function URL: GitHub deliveries to messages. */
  webhook: fileURLToPath(new URL('../functions/lambda/webhook.ts', import.meta.url)),
} as const;

export type LambdaEntryName = keyof typeof lambdaEntries;

export interface BuiltBundle {
  directory: string;
  file: string;
  bytes: number;
  /** The source files bundled, relative to the working directory (esbuild's metafile): what each entry carries. */
  inputs: string[];
}

/** Builds the bundle exactly as the stack does (same entry and options) into `outdir`, with the config beside it. */
export async function buildLambdaBundle(options: { outdir: string; configFile: string; entry?: string }): Promise<BuiltBundle> {
  await mkdir(options.outdir, { recursive: true });
  const file = join(options.outdir, lambdaBundle.outfileName);
  const result = await build({
    entryPoints: [options.entry ?? lambdaBundle.entry],
    bundle: true,
    platform: 'node',
    format: lambdaBundle.format,
    target: lambdaBundle.target,
    mainFields: [...lambdaBundle.mainFields],
    banner: { js: lambdaBundle.banner },
    external: [...lambdaBundle.externalModules],
    minify: lambdaBundle.minify,
    keepNames: lambdaBundle.keepNames,
    outfile: file,
    metafile: true,
    logLevel: 'error',
  });
  await copyFile(options.configFile, join(options.outdir, lambdaBundle.configFileName));
  return { directory: options.outdir, file, bytes: (await stat(file)).size, inputs: Object.keys(result.metafile.inputs) };
}
