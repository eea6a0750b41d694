#!/usr/bin/env node
// `mcp-canary` in a checkout: runs the TypeScript entry through tsx (a devDependency). The installed
// package's bin is the built dist/cli/start.mjs instead (npm run build), which needs no tsx.
import { register } from 'tsx/esm/api';

register();
await import('./start.ts');
