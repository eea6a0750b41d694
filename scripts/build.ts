/**
 * `npm run build`: the installable package in dist/ (npm pack runs it through `prepack`).
 *
 * - dist/functions, dist/infra: the engine (`mcp-canary`) and the construct (`mcp-canary/cdk`) as
 *   JavaScript with declarations, by tsc (tsconfig.build.json); their dependencies stay in node_modules.
 * - dist/cli: the command, bundled by esbuild with everything it needs (scripts/cli-bundle.ts), so it
 *   starts without resolving hundreds of files.
 * - dist/lambda/<name>/index.mjs: each Lambda handler bundled with infra/constructs/bundle.ts's options, the
 *   files the installed construct deploys (it has no esbuild and no .ts sources to bundle at synth).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BRIEF_HANDLER_ENTRY,
  STATUS_HANDLER_ENTRY,
  bundleHandler,
  REFRESH_HANDLER_ENTRY,
  RUN_HANDLER_ENTRY,
} from '../infra/constructs/bundle.ts';
import { HANDLERS } from '../infra/constructs/lambda-bundling.ts';
import { bundleCli } from './cli-bundle.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

// Progress on stderr: `npm pack --json` runs this through prepack, and its stdout must stay JSON.
const log = (s: string) => process.stderr.write(`build: ${s}\n`);

async function main(): Promise<void> {
  const started = performance.now();
  rmSync(DIST, { recursive: true, force: true });

  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2], cwd: ROOT });
  // version.ts imports package.json, so tsc copies all of it to dist/ (scripts, devDependencies and all);
  // the copy keeps what the emitted code reads, and the module type of the files beside it.
  writeFileSync(join(DIST, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module' }, null, 2)}\n`);
  log('dist/functions, dist/infra (tsc, with declarations)');

  await bundleCli(join(DIST, 'cli'));
  log(`dist/cli/start.mjs (esbuild, one entry and its lazily imported engine chunk)`);

  for (const [entry, name] of [
    [RUN_HANDLER_ENTRY, 'run'],
    [BRIEF_HANDLER_ENTRY, 'brief'],
    [REFRESH_HANDLER_ENTRY, 'refresh'],
    [STATUS_HANDLER_ENTRY, 'status'],
  ] as const) {
    const bundle = await bundleHandler(entry, join(DIST, HANDLERS[name].asset));
    log(`${relative(ROOT, bundle.file)} (${Math.round(bundle.bytes / 1024)} KB)`);
  }
  log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
