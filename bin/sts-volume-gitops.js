#!/usr/bin/env node
// Entry for the `sts-volume-gitops` bin: check the Node version first, before importing anything that needs Node 22
// (static imports would run before any check), then load the TypeScript CLI through tsx.
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../functions/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
