#!/usr/bin/env node
// Entry for the `sts-volume-gitops` bin: load the TypeScript CLI through tsx (Node >= 22.19 required by client-node).
import { register } from 'tsx/esm/api';
register();
await import('../functions/cli/main.ts');
