#!/usr/bin/env node
/**
 * The `mcp-canary` command's entry (`npm run build` bundles it to dist/cli/start.mjs, the package's bin).
 * Asking for help needs only the help text, so it is answered here before the engine loads: the MCP SDK
 * and zod are half of the CLI's start (test/bench/README.md). Everything else goes to bin.ts unchanged.
 */
import { asksForHelp, HELP } from './help.ts';

if (asksForHelp(process.argv.slice(2))) {
  process.stdout.write(`${HELP}\n`);
} else {
  await import('./bin.ts');
}
