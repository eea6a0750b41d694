/**
 * `npm ci` / `npm install` in a clone (the `prepare` script): links the `mcp-canary` command into
 * node_modules/.bin, so `npx mcp-canary …` — the README's CLI lines — runs in a clone as it does where
 * the package is installed. npm links the bins of dependencies only, never the root package's own
 * (`sh: mcp-canary: not found`). The link points at functions/cli/mcp-canary.mjs, which runs the
 * TypeScript entry through tsx: no build needed, every edit live. An installed package's bin is the
 * built dist/cli/start.mjs instead. (POSIX symlink: on Windows use `npm run check -- …`.)
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN_DIR = join(ROOT, 'node_modules/.bin');
const ENTRY = join(ROOT, 'functions/cli/mcp-canary.mjs');
const LINK = join(BIN_DIR, 'mcp-canary');

mkdirSync(BIN_DIR, { recursive: true });
rmSync(LINK, { force: true });
symlinkSync(relative(BIN_DIR, ENTRY), LINK);
chmodSync(ENTRY, 0o755);
process.stderr.write('prepare: node_modules/.bin/mcp-canary → functions/cli/mcp-canary.mjs (npx mcp-canary in this clone)\n');
