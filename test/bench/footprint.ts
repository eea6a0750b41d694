/**
 * The Lambda footprint: the bundle `infra/constructs/bundle.ts` builds (and variants of it, to show what each
 * option or source change would buy), its cold import in fresh Node processes, and the peak RSS of
 * one real invocation of the built handler (against the bench's MCP server and moto for PutMetricData).
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { esbuildOptions, RUN_HANDLER_ENTRY } from '../../infra/constructs/bundle.ts';
import { runToEnd } from './children.ts';
import { median } from './stats.ts';

/** Where the bench writes what it builds (gitignored). */
export const BENCH_DIR = new URL('../../.bench/', import.meta.url).pathname;

/** Set it to a Node 24 binary to measure on the Lambda runtime's major version. */
export const FOOTPRINT_NODE = process.env.MCP_CANARY_BENCH_NODE ?? process.execPath;

export interface Variant {
  readonly name: string;
  /** What it takes: "shipped", "an esbuild option", "a source change in …". */
  readonly needs: string;
  readonly options?: Partial<BuildOptions>;
  readonly plugins?: readonly Plugin[];
}

export interface BuiltVariant {
  readonly variant: Variant;
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Bytes in the output per package (top contributors). */
  readonly byPackage: ReadonlyArray<readonly [string, number]>;
}

/**
 * Emulates the engine giving the SDK client the cfworker JSON Schema validator (the one the SDK uses on
 * Cloudflare Workers) instead of its Node default, Ajv, which also compiles code per schema. A behaviour
 * choice for the engine (validators differ in corner cases), so bench only.
 */
export const cfWorkerValidator: Plugin = {
  name: 'bench-cfworker-validator',
  setup(b) {
    // The SDK's default (its Node shim) and the engine's explicit provider (functions/engine/probe/validator.ts).
    b.onResolve({ filter: /^@modelcontextprotocol\/client\/(_shims|validators\/ajv)$/ }, (args) => ({
      path: args.path,
      namespace: 'bench-validator',
    }));
    b.onLoad({ filter: /.*/, namespace: 'bench-validator' }, (args) => ({
      contents: args.path.endsWith('_shims')
        ? "export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker'; export const CORS_IS_POSSIBLE = false;"
        : "export { CfWorkerJsonSchemaValidator as AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';",
      resolveDir: new URL('../../', import.meta.url).pathname,
      loader: 'js',
    }));
  },
};

export const VARIANTS: readonly Variant[] = [
  { name: 'shipped (infra/constructs/bundle.ts)', needs: '—' },
  { name: '@aws-sdk/* external', needs: "esbuild option (runtime's SDK)", options: { external: ['@aws-sdk/*'] } },
  // functions/base/config/ imports zod as a namespace since the bench showed `{ z }` kept all 264 KB of its locales.
  { name: 'cfworker validator', needs: 'engine choice: probe/', plugins: [cfWorkerValidator] },
  {
    name: 'cfworker + @aws-sdk/* external',
    needs: 'engine choice + esbuild option',
    options: { external: ['@aws-sdk/*'] },
    plugins: [cfWorkerValidator],
  },
];

export async function buildVariant(variant: Variant, index: number): Promise<BuiltVariant> {
  // Inside the repo, so an external `@aws-sdk/*` resolves from node_modules as the runtime's copy would.
  const outdir = join(BENCH_DIR, 'bundles', String(index));
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const file = join(outdir, 'index.mjs');
  const result = await build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    external: [...esbuildOptions.external],
    ...variant.options,
    plugins: [...(variant.plugins ?? [])],
    entryPoints: [RUN_HANDLER_ENTRY],
    outfile: file,
    metafile: true,
    logLevel: 'silent',
  });
  const contents = await readFile(file);
  const byPackage = new Map<string, number>();
  for (const [path, info] of Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)) {
    const m = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(path);
    const key = m ? m[1]! : 'mcp-canary';
    byPackage.set(key, (byPackage.get(key) ?? 0) + info.bytesInOutput);
  }
  return {
    variant,
    file,
    bytes: contents.length,
    gzipBytes: gzipSync(contents).length,
    byPackage: [...byPackage].sort((a, b) => b[1] - a[1]),
  };
}

/** Environment the handler reads at import (it fails its cold start without them). */
const HANDLER_ENV = {
  MCP_CANARY_HOME_REGION: 'us-east-1',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
};

const IMPORT_CHILD = `
const t0 = performance.now();
await import(process.env.BUNDLE_URL);
const importMs = performance.now() - t0;
process.stdout.write(JSON.stringify({ importMs, readyMs: performance.now() }) + '\\n');
`;

export interface ColdImport {
  /** `await import()` of the bundle, median over fresh processes. */
  readonly importMs: number;
  /** From process start to the handler ready (Node's own start-up included), median. */
  readonly readyMs: number;
}

/** Cold imports of several bundles, interleaved, each in a fresh Node process. */
export async function coldImports(files: readonly string[], rounds: number): Promise<ColdImport[]> {
  const samples = files.map(() => ({ importMs: [] as number[], readyMs: [] as number[] }));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < files.length; k++) {
      const i = (r + k) % files.length;
      const child = await runToEnd(FOOTPRINT_NODE, ['--input-type=module', '-e', IMPORT_CHILD], {
        env: { PATH: process.env.PATH, BUNDLE_URL: pathToFileURL(files[i]!).href, ...HANDLER_ENV },
      });
      if (child.code !== 0) throw new Error(`cold import of ${files[i]} failed: ${child.stderr.slice(0, 400)}`);
      const m = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { importMs: number; readyMs: number };
      samples[i]!.importMs.push(m.importMs);
      samples[i]!.readyMs.push(m.readyMs);
    }
  }
  return samples.map((s) => ({ importMs: median(s.importMs), readyMs: median(s.readyMs) }));
}

const RUN_CHILD = `
const t0 = performance.now();
const { handler } = await import(process.env.BUNDLE_URL);
const importMs = performance.now() - t0;
const context = { getRemainingTimeInMillis: () => 60_000 };
const t1 = performance.now();
const summary = await handler(JSON.parse(process.env.EVENT), context);
const handlerMs = performance.now() - t1;
const maxRssKb = process.resourceUsage().maxRSS;
process.stdout.write('LOGS-END\\n');
// A second invocation in the same process: what the next minute's run costs a warm container.
const t2 = performance.now();
await handler(JSON.parse(process.env.EVENT), context);
const warmHandlerMs = performance.now() - t2;
process.stdout.write('RESULT ' + JSON.stringify({ importMs, handlerMs, warmHandlerMs, maxRssKb, warmMaxRssKb: process.resourceUsage().maxRSS, summary }) + '\\n');
`;

/**
 * The V8 limits the Lambda Node runtime's bootstrap sets for a function's memory (new space a tenth of
 * it, half of that per semi-space, the rest old space), as public copies of that bootstrap show; without
 * them V8 on a big machine grows its heap lazily and the peak RSS says little about what would fit.
 */
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

export interface OneRun {
  readonly targets: number;
  /** Node flags of the run (the Lambda's heap limits, or none). */
  readonly nodeFlags: readonly string[];
  readonly importMs: number;
  /** The first (cold) invocation: judging, logging, PutMetricData to moto. */
  readonly handlerMs: number;
  /** The second invocation in the same process, as a warm container runs it. */
  readonly warmHandlerMs: number;
  /** Peak RSS after the first invocation, and after the second. */
  readonly peakRssBytes: number;
  readonly warmPeakRssBytes: number;
  /** Bytes of the run's own log lines per target (the Lambda adds START/END/REPORT lines). */
  readonly logBytesPerTarget: number;
  readonly published: boolean;
  readonly outcomes: readonly string[];
}

/** A cold invocation of the built handler in a fresh process, then a warm one: `targets` copies of the target at once. */
export async function oneRun(
  file: string,
  targetUrl: string,
  targets: number,
  awsEndpoint: string,
  nodeFlags: readonly string[] = [],
): Promise<OneRun> {
  const event = {
    targets: Array.from({ length: targets }, (_, i) => ({
      name: `bench-${i}`,
      url: `${targetUrl}?n=${i}`,
      tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } },
    })),
  };
  const child = await runToEnd(FOOTPRINT_NODE, [...nodeFlags, '--input-type=module', '-e', RUN_CHILD], {
    env: {
      PATH: process.env.PATH,
      BUNDLE_URL: pathToFileURL(file).href,
      EVENT: JSON.stringify(event),
      ...HANDLER_ENV,
      AWS_ENDPOINT_URL: awsEndpoint,
    },
  });
  const lines = child.stdout.split('\n').filter(Boolean);
  const result = lines.find((l) => l.startsWith('RESULT '));
  if (child.code !== 0 || !result) throw new Error(`the built handler failed (exit ${child.code}): ${child.stderr.slice(0, 600)}`);
  const r = JSON.parse(result.slice('RESULT '.length)) as {
    importMs: number;
    handlerMs: number;
    warmHandlerMs: number;
    maxRssKb: number;
    warmMaxRssKb: number;
    summary: { published: boolean; verdicts: Array<{ outcome: string }> };
  };
  const firstRunLines = lines.slice(0, lines.indexOf('LOGS-END'));
  const logBytes = firstRunLines.reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0);
  return {
    targets,
    nodeFlags,
    importMs: r.importMs,
    handlerMs: r.handlerMs,
    warmHandlerMs: r.warmHandlerMs,
    peakRssBytes: r.maxRssKb * 1024,
    warmPeakRssBytes: r.warmMaxRssKb * 1024,
    logBytesPerTarget: logBytes / targets,
    published: r.summary.published,
    outcomes: r.summary.verdicts.map((v) => v.outcome),
  };
}
