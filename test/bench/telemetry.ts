/**
 * What OpenTelemetry export costs the run Lambda: the handler bundle's size and cold import with export
 * off, against the same handler without the telemetry hook (today's run before it) and against the SDK
 * inlined into the one file (what a plain `import('./export.ts')` would have shipped); and, with export
 * on, what the first export pays once per container to load the side file. Fresh Node processes,
 * interleaved, medians.
 */
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { bundleHandler, esbuildOptions, RUN_HANDLER_ENTRY } from '../../infra/constructs/bundle.ts';
import { runToEnd } from './children.ts';
import { BENCH_DIR, FOOTPRINT_NODE } from './footprint.ts';
import { median } from './stats.ts';

/** The run's telemetry hook replaced by "none": the handler as it was before export existed. */
const withoutTelemetry: Plugin = {
  name: 'bench-no-telemetry',
  setup(b) {
    b.onLoad({ filter: /functions[\\/]lambdas[\\/]run[\\/]telemetry\.ts$/ }, () => ({
      contents: 'export const telemetryFor = () => undefined;',
      loader: 'ts',
    }));
  },
};

/** The export imported by a literal path, so esbuild inlines the SDK into index.mjs. */
const inlined: Plugin = {
  name: 'bench-inlined-export',
  setup(b) {
    b.onLoad({ filter: /functions[\\/]io[\\/]telemetry[\\/]batch\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/return import\(spec\)/, "return import('./export.ts')"),
      loader: 'ts',
    }));
  },
};

const ENV = {
  MCP_CANARY_HOME_REGION: 'us-east-1',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
};
const ON = JSON.stringify({ traces: { url: 'http://127.0.0.1:4318/v1/traces' }, headers: {}, timeoutMs: 2000 });

/** Imports the handler; with SIDE set, then the export file (what the first export of a container loads). */
const CHILD = `
const t0 = performance.now();
await import(process.env.BUNDLE_URL);
const importMs = performance.now() - t0;
let exportLoadMs = 0;
if (process.env.SIDE_URL) { const t1 = performance.now(); await import(process.env.SIDE_URL); exportLoadMs = performance.now() - t1; }
process.stdout.write(JSON.stringify({ importMs, exportLoadMs }) + '\\n');
`;

export interface TelemetryRow {
  readonly name: string;
  readonly bytes: number;
  readonly importMs: number;
  /** Loading the export file, once per container, on the first export. */
  readonly exportLoadMs?: number;
}

export interface TelemetryFootprint {
  readonly rows: readonly TelemetryRow[];
  readonly sideFileBytes: number;
  /** Shipped with export off ÷ without the hook: the bound is 1.10. */
  readonly sizeRatio: number;
  readonly importRatio: number;
}

async function variant(name: string, plugins: Plugin[]): Promise<string> {
  const dir = join(BENCH_DIR, 'telemetry', name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  await build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    external: [],
    plugins,
    entryPoints: [RUN_HANDLER_ENTRY],
    outfile: file,
    logLevel: 'silent',
  });
  return file;
}

export async function telemetryFootprint(rounds: number): Promise<TelemetryFootprint> {
  const before = await variant('without-hook', [withoutTelemetry]);
  const inline = await variant('inlined', [inlined]);
  const shipped = await bundleHandler(RUN_HANDLER_ENTRY, join(BENCH_DIR, 'telemetry', 'shipped'));
  const side = shipped.sideFiles[0]!;
  const plans = [
    { name: 'without the telemetry hook (before)', file: before, env: {} },
    { name: 'shipped, export off', file: shipped.file, env: {} },
    {
      name: 'shipped, export on (+ the export file at first export)',
      file: shipped.file,
      env: { MCP_CANARY_TELEMETRY: ON, SIDE_URL: pathToFileURL(side.file).href },
    },
    { name: 'SDK inlined into index.mjs, export off', file: inline, env: {} },
  ];
  const samples = plans.map(() => ({ importMs: [] as number[], exportLoadMs: [] as number[] }));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < plans.length; k++) {
      const i = (r + k) % plans.length;
      const p = plans[i]!;
      const child = await runToEnd(FOOTPRINT_NODE, ['--input-type=module', '-e', CHILD], {
        env: { PATH: process.env.PATH, BUNDLE_URL: pathToFileURL(p.file).href, ...ENV, ...p.env },
      });
      if (child.code !== 0) throw new Error(`cold import of ${p.file} failed: ${child.stderr.slice(0, 400)}`);
      const m = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { importMs: number; exportLoadMs: number };
      samples[i]!.importMs.push(m.importMs);
      samples[i]!.exportLoadMs.push(m.exportLoadMs);
    }
  }
  const rows = await Promise.all(
    plans.map(async (p, i) => ({
      name: p.name,
      bytes: (await stat(p.file)).size,
      importMs: median(samples[i]!.importMs),
      ...('SIDE_URL' in p.env ? { exportLoadMs: median(samples[i]!.exportLoadMs) } : {}),
    })),
  );
  return {
    rows,
    sideFileBytes: side.bytes,
    sizeRatio: rows[1]!.bytes / rows[0]!.bytes,
    importRatio: rows[1]!.importMs / rows[0]!.importMs,
  };
}
