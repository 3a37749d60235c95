// What each shipped entry carries: the entries that run no pass (the dispatcher enqueues, the webhook verifies and
// enqueues) must not bundle the Kubernetes client and its HTTP stack (client-node and undici: about 2 MiB of the
// worker's 3.15 MiB, minified); the worker must. Built by the stack's own esbuild definition.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildLambdaBundle, lambdaEntries, type BuiltBundle, type LambdaEntryName } from '../../infra/lambda-bundle.ts';

const passOnly = ['node_modules/@kubernetes/client-node/', 'node_modules/undici/', 'functions/adapters/kube/', 'functions/engine/'];

describe('the shipped bundles, entry by entry', () => {
  let dir: string;
  const bundles = new Map<LambdaEntryName, BuiltBundle>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-bundle-contents-'));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, 'targets: []\n');
    for (const [name, entry] of Object.entries(lambdaEntries) as Array<[LambdaEntryName, string]>) {
      bundles.set(name, await buildLambdaBundle({ outdir: join(dir, name), configFile, entry }));
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const carried = (name: LambdaEntryName): string[] => {
    const inputs = bundles.get(name)?.inputs ?? [];
    return passOnly.filter((prefix) => inputs.some((input) => input.includes(prefix)));
  };

  it('leaves the Kubernetes client, its HTTP stack and the engine out of the dispatcher and the webhook', () => {
    assert.deepEqual(carried('dispatcher'), []);
    assert.deepEqual(carried('webhook'), []);
  });

  it('puts them in the worker, which runs passes', () => {
    assert.deepEqual(carried('worker'), passOnly);
  });
});
