/**
 * How the scheduled-run Lambda is built: one ESM file for the Node 24 runtime, AWS SDK included. The CDK
 * stack's `NodejsFunction` bundling must use exactly these options (see `nodejsFunctionBundling` below
 * for the mapping), and test/integration/run/bundle.test.ts builds with them, imports the result in a fresh Node
 * process and runs it once against moto — the way deploy-time crashes are caught before a deploy.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';

export const RUN_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/run/handler.ts', import.meta.url));
export const BRIEF_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/brief/handler.ts', import.meta.url));
export const STATUS_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/status/handler.ts', import.meta.url));
/** The Lambda handler setting for the built file: `index.mjs`, export `handler`. */
export const RUN_HANDLER_NAME = 'index.handler';
export const LAMBDA_NODE_TARGET = 'node24';

/**
 * Gives bundled CommonJS code a real `require` for Node built-ins. `mainFields` below already keeps
 * the AWS SDK on its ESM builds; this is the second guard, for a dependency that is CommonJS only.
 */
export const CREATE_REQUIRE_BANNER =
  "import { createRequire as __mcpCanaryCreateRequire } from 'node:module'; const require = __mcpCanaryCreateRequire(import.meta.url);";

export const esbuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: LAMBDA_NODE_TARGET,
  // Without 'module' first, esbuild takes the SDK's CommonJS builds, whose `require("node:zlib")` crashes
  // an ESM bundle at import: "Dynamic require of "node:zlib" is not supported".
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  banner: { js: CREATE_REQUIRE_BANNER },
  // Nothing external, not even @aws-sdk/*: the runtime's bundled SDK version changes under us, and one
  // pinned file makes the cold start (and what was tested) predictable.
  external: [],
} as const satisfies BuildOptions;

/**
 * The same options in `NodejsFunction` terms, for the CDK stack:
 * `bundling: { format: OutputFormat.ESM, target, mainFields, minify, sourceMap, banner, externalModules }`
 * and `runtime: Runtime.NODEJS_24_X`, `handler: 'index.handler'`. Note `externalModules: []`: the
 * CDK default leaves `@aws-sdk/*` out.
 */
export const nodejsFunctionBundling = {
  format: 'esm',
  target: esbuildOptions.target,
  mainFields: [...esbuildOptions.mainFields],
  minify: esbuildOptions.minify,
  sourceMap: esbuildOptions.sourcemap,
  banner: CREATE_REQUIRE_BANNER,
  externalModules: [] as string[],
} as const;

export interface BuiltBundle {
  /** Absolute path of `index.mjs`. */
  readonly file: string;
  readonly bytes: number;
  readonly metafile: Metafile;
}

/** Builds the run handler into `outdir/index.mjs`. */
export function bundleRunHandler(outdir: string): Promise<BuiltBundle> {
  return bundleHandler(RUN_HANDLER_ENTRY, outdir);
}

/**
 * Builds a handler entry into `outdir/index.mjs` (`npm run build` ships these for the installed package).
 * esbuild is imported here, not at the top: the installed package loads this file's options (through
 * the construct) but has no esbuild.
 */
export async function bundleHandler(entry: string, outdir: string): Promise<BuiltBundle> {
  const { build } = await import('esbuild');
  const file = join(outdir, 'index.mjs');
  const result = await build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    external: [],
    entryPoints: [entry],
    outfile: file,
    metafile: true,
    logLevel: 'silent',
  });
  return { file, bytes: (await stat(file)).size, metafile: result.metafile };
}
