#!/usr/bin/env node
// The `mcp-canary` command: runs the TypeScript CLI through tsx (a dependency), so no build step.
import { register } from 'tsx/esm/api';

register();
await import('./bin.ts');
