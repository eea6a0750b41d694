/**
 * How the scheduled-run Lambda is built: one ESM file for the Node 24 runtime, AWS SDK included. The CDK
 * stack's `NodejsFunction` bundling must use exactly these options (see `nodejsFunctionBundling` below
 * for the mapping), and test/release/lambdas/run/bundle.test.ts builds with them, imports the result in a fresh Node
 * process and runs it once against moto — the way deploy-time crashes are caught before a deploy.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';

export const RUN_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/lambdas/run/handler.ts', import.meta.url));
export const BRIEF_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/lambdas/brief/handler.ts', import.meta.url));
export const REFRESH_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/lambdas/refresh/handler.ts', import.meta.url));
/**
 * The OpenTelemetry export, a file of its own beside the run handler's index.mjs (functions/io/telemetry/batch.ts
 * imports it by this name, only when telemetry is configured): a fleet without telemetry never parses the SDK.
 */
export const TELEMETRY_EXPORT_ENTRY = fileURLToPath(new URL('../../functions/io/telemetry/export.ts', import.meta.url));
export const TELEMETRY_EXPORT_FILE = 'telemetry-export.mjs';
/** undici (proxies, a target's own TLS), beside the run handler too: functions/base/net/reach.ts loads it by this name when a target needs it. */
export const UNDICI_ENTRY = fileURLToPath(new URL('../../functions/base/net/undici.ts', import.meta.url));
export const UNDICI_FILE = 'net-undici.mjs';
/** The files built beside a handler's index.mjs, by entry. */
export const HANDLER_SIDE_FILES: ReadonlyMap<string, ReadonlyArray<{ readonly entry: string; readonly file: string }>> = new Map([
  [
    RUN_HANDLER_ENTRY,
    [
      { entry: TELEMETRY_EXPORT_ENTRY, file: TELEMETRY_EXPORT_FILE },
      { entry: UNDICI_ENTRY, file: UNDICI_FILE },
    ],
  ],
]);
export const STATUS_HANDLER_ENTRY = fileURLToPath(new URL('../../functions/lambdas/status/handler.ts', import.meta.url));
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
  /** The files built beside it (the telemetry export), loaded only when used. */
  readonly sideFiles: ReadonlyArray<{ readonly file: string; readonly bytes: number }>;
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
  const one = (from: string, outfile: string) =>
    build({
      ...esbuildOptions,
      mainFields: [...esbuildOptions.mainFields],
      external: [],
      entryPoints: [from],
      outfile,
      metafile: true,
      logLevel: 'silent',
    });
  const [result] = await Promise.all([
    one(entry, file),
    ...(HANDLER_SIDE_FILES.get(entry) ?? []).map((f) => one(f.entry, join(outdir, f.file))),
  ]);
  const sideFiles = await Promise.all(
    (HANDLER_SIDE_FILES.get(entry) ?? []).map(async (f) => ({
      file: join(outdir, f.file),
      bytes: (await stat(join(outdir, f.file))).size,
    })),
  );
  return { file, bytes: (await stat(file)).size, metafile: result.metafile, sideFiles };
}

/**
 * The same side files in `NodejsFunction` terms: shell commands for `commandHooks.afterBundling`, one
 * esbuild run each with the handler's options (NodejsFunction bundles one entry with `--outfile`, so it
 * cannot split). Runs at synth where esbuild is installed (this repository); the installed package
 * deploys dist/lambda/run as built, side files included.
 */
export function sideFileCommands(entry: string, outputDir: string, esbuildBin: string): string[] {
  return (HANDLER_SIDE_FILES.get(entry) ?? []).map((f) =>
    [
      // esbuild's bin is its native binary after install (a node shim with a shebang where none fits): run it as it is.
      JSON.stringify(esbuildBin),
      JSON.stringify(f.entry),
      '--bundle',
      `--platform=${esbuildOptions.platform}`,
      `--format=${esbuildOptions.format}`,
      `--target=${esbuildOptions.target}`,
      `--main-fields=${esbuildOptions.mainFields.join(',')}`,
      ...(esbuildOptions.minify ? ['--minify'] : []),
      `--legal-comments=${esbuildOptions.legalComments}`,
      '--log-level=warning',
      JSON.stringify(`--banner:js=${esbuildOptions.banner.js}`),
      JSON.stringify(`--outfile=${join(outputDir, f.file)}`),
    ].join(' '),
  );
}
