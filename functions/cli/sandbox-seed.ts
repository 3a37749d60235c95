// What a seed folder (examples/, or a copy given to `sandbox --seed`) adds to the sandboxes' ready configuration: its
// `sandbox-target.yaml` holds target fields, the size sources its repository's charts need, prices for its cluster's
// StorageClasses and guardrails, read and checked as the configuration's own (a mistake names the file and the field).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as jsYaml from 'js-yaml';
import { ConfigError, parseConfig, type GuardrailsConfig, type PriceConfig, type SizeSourceConfig } from '../domain/config.ts';

export const examplesFolder = fileURLToPath(new URL('../../examples/', import.meta.url));
/** The file of a seed folder that holds what its target adds. */
export const seedTargetFile = 'sandbox-target.yaml';

export interface SeedTarget {
  sizeSources: readonly SizeSourceConfig[];
  prices: PriceConfig | undefined;
  guardrails: GuardrailsConfig | undefined;
}

const fields = ['sizeSources', 'prices', 'guardrails'];

/** `text` (the file at `path`) read as target fields, checked by the configuration's own rules. */
export function parseSeedTarget(text: string, path: string): SeedTarget {
  let value: unknown;
  try {
    value = jsYaml.load(text);
  } catch (error) {
    throw new ConfigError(path, [`not valid YAML: ${error instanceof jsYaml.YAMLException ? error.reason : String(error)}`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(path, [`must be a mapping of ${fields.join(', ')}`]);
  const unknown = Object.keys(value).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw new ConfigError(path, unknown.map((key) => `has an unknown field "${key}": a seed's target takes ${fields.join(', ')}`));
  // Checked inside a target that has everything else, so a problem reads as it would in a configuration file.
  const target = {
    name: 'demo', source: { local: { directory: '.', paths: ['**/*.yaml'] } }, cluster: { kubeconfig: { path: 'kubeconfig' } },
    namespaces: { allow: ['default'] }, ...value,
  };
  const [parsed] = parseConfig(JSON.stringify({ targets: [target] }), path, '.').targets;
  return { sizeSources: parsed?.sizeSources ?? [], prices: parsed?.prices, guardrails: parsed?.guardrails };
}

/** The seed folder's target fields, or undefined when it has no `sandbox-target.yaml`. */
export async function readSeedTarget(folder: string): Promise<SeedTarget | undefined> {
  const path = join(folder, seedTargetFile);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseSeedTarget(text, path);
}

/** examples/'s own, which `npm start` and the tests use. */
export const exampleSeedTarget: SeedTarget = parseSeedTarget(readFileSync(join(examplesFolder, seedTargetFile), 'utf8'), join(examplesFolder, seedTargetFile));
