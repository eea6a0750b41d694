/**
 * The CLI as one esbuild bundle: what `npm run build` puts in dist/cli (the installed `mcp-canary`), and
 * what the tests spawn (test/helpers/cli-bin.ts builds it once per test run), so both run the same file.
 * The entry answers --help itself and imports the engine chunk only for a check; `assertHelpPathIsLight`
 * keeps it so.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { CREATE_REQUIRE_BANNER, esbuildOptions } from '../infra/constructs/bundle.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const CLI_ENTRY = fileURLToPath(new URL('../functions/cli/start.ts', import.meta.url));
/** Packages `--help` must not load: they are what makes the full CLI start slowly. */
const NOT_ON_HELP_PATH = ['node_modules/zod/', 'node_modules/@modelcontextprotocol/', 'node_modules/ajv'];

/** Bundles the CLI into `outdir` (`start.mjs` and its chunks); returns the entry's path. */
export async function bundleCli(outdir: string): Promise<string> {
  const cli = await build({
    ...esbuildOptions,
    // The user's Node, not the Lambda's: the floor package.json's engines promise (22.18, the first Node
    // that loads a .ts config by itself).
    target: 'node22.18',
    mainFields: [...esbuildOptions.mainFields],
    external: [],
    banner: { js: CREATE_REQUIRE_BANNER },
    entryPoints: { start: CLI_ENTRY },
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  assertHelpPathIsLight(cli.metafile);
  return `${outdir}/start.mjs`;
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
