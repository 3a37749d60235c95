#!/usr/bin/env node
// Entry for the `sts-volume-gitops` bin: load the TypeScript CLI through tsx (Node >= 22.19, as client-node requires).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../functions/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
