/**
 * `npm run build`: the installable package in dist/ (npm pack runs it through `prepack`).
 *
 * - dist/functions, dist/infra: the engine (`mcp-canary`) and the construct (`mcp-canary/cdk`) as
 *   JavaScript with declarations, by tsc (tsconfig.build.json); their dependencies stay in node_modules.
 * - dist/cli: the command, bundled by esbuild with everything it needs, so it starts without resolving
 *   hundreds of files; the entry answers --help itself and imports the engine chunk only for a check.
 * - dist/lambda/<name>/index.mjs: each Lambda handler bundled with infra/constructs/bundle.ts's options, the
 *   files the installed construct deploys (it has no esbuild and no .ts sources to bundle at synth).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import {
  BRIEF_HANDLER_ENTRY,
  STATUS_HANDLER_ENTRY,
  bundleHandler,
  CREATE_REQUIRE_BANNER,
  esbuildOptions,
  REFRESH_HANDLER_ENTRY,
  RUN_HANDLER_ENTRY,
} from '../infra/constructs/bundle.ts';
import { HANDLERS } from '../infra/constructs/lambda-bundling.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const CLI_ENTRY = join(ROOT, 'functions/cli/start.ts');
/** Packages `--help` must not load: they are what makes the full CLI start slowly. */
const NOT_ON_HELP_PATH = ['node_modules/zod/', 'node_modules/@modelcontextprotocol/', 'node_modules/ajv'];

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

  const cli = await build({
    ...esbuildOptions,
    // The user's Node, not the Lambda's: the floor package.json's engines promise (22.18, the first Node
    // that loads a .ts config by itself).
    target: 'node22.18',
    mainFields: [...esbuildOptions.mainFields],
    external: [],
    banner: { js: CREATE_REQUIRE_BANNER },
    entryPoints: { start: CLI_ENTRY },
    outdir: join(DIST, 'cli'),
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  assertHelpPathIsLight(cli.metafile);
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

/**
 * The entry's static imports are what every start pays for. If a change makes the help text import the
 * engine (zod, the MCP SDK), the command starts as slowly as before the build existed: fail here, not
 * in a benchmark nobody reads.
 */
function assertHelpPathIsLight(metafile: Metafile): void {
  const entry = Object.entries(metafile.outputs).find(
    ([, o]) => o.entryPoint && relative(ROOT, o.entryPoint) === relative(ROOT, CLI_ENTRY),
  );
  if (!entry) throw new Error('build: esbuild did not report the CLI entry');
  const seen = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of metafile.outputs[file]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) walk(i.path);
  };
  walk(entry[0]);
  const heavy = [...seen]
    .flatMap((f) => Object.keys(metafile.outputs[f]?.inputs ?? {}))
    .filter((input) => NOT_ON_HELP_PATH.some((p) => input.includes(p)));
  if (heavy.length > 0) {
    throw new Error(
      `build: mcp-canary --help would load ${heavy.slice(0, 3).join(', ')}${heavy.length > 3 ? ', …' : ''}: keep functions/cli/help.ts free of imports.`,
    );
  }
}

await main();
