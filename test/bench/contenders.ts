/**
 * Everything the bench times or traces, as one-shot runs against a URL: the engine in-process, the
 * engine in a fresh process, the fetch floor, and `@modelcontextprotocol/inspector-cli`.
 */
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { Target, type TargetInput } from '../../functions/base/config/schema/target.ts';
import { judge } from '../../functions/engine/judge/judge.ts';
import { esbuildOptions } from '../../infra/constructs/bundle.ts';
import { runToEnd } from './children.ts';
import { Floor } from './floor.ts';
import { BENCH_DIR } from './footprint.ts';

export const TOOL = { name: 'get_rate', arguments: { pair: 'EURUSD' } } as const;
const EXPECTED_TEXT = 'EURUSD 1.08';

export type Era = 'modern' | 'legacy';

export function targetFor(url: string, revision: TargetInput['revision'] = 'auto'): TargetInput {
  return { name: 'bench', url, revision, tool: { ...TOOL, expectJson: { rate: 1.08 } } };
}

const parsed = new Map<string, Target>();

/** The engine in this process: one `judge()` (the target parsed once, as the Lambda's payload is); throws unless healthy. */
export async function engineRun(url: string, revision: TargetInput['revision'] = 'auto'): Promise<void> {
  const key = `${revision} ${url}`;
  let target = parsed.get(key);
  if (!target) parsed.set(key, (target = Target.parse(targetFor(url, revision))));
  const v = await judge(target);
  if (v.outcome !== 'healthy') throw new Error(`engine: ${v.outcome} ${v.failure ?? ''}: ${v.detail}`);
}

export async function floorRun(floor: Floor, era: Era, url: string): Promise<void> {
  const text = era === 'modern' ? await floor.modern(url, TOOL) : await floor.legacy(url, TOOL);
  if (text !== EXPECTED_TEXT) throw new Error(`floor: unexpected answer ${text}`);
}

/** Bundles `engine-once.ts` with the Lambda's esbuild options; returns the file to run with node. */
export async function buildEngineOnce(): Promise<string> {
  const outdir = join(BENCH_DIR, 'engine-once');
  await mkdir(outdir, { recursive: true });
  const file = join(outdir, 'index.mjs');
  await build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    external: [...esbuildOptions.external],
    entryPoints: [new URL('./engine-once.ts', import.meta.url).pathname],
    outfile: file,
    logLevel: 'silent',
  });
  return file;
}

/** The engine in a fresh Node process (bundled): process start, import, one verdict, exit. */
export async function engineProcessRun(file: string, url: string): Promise<void> {
  const r = await runToEnd(process.execPath, [file, JSON.stringify(targetFor(url))], { env: { PATH: process.env.PATH } });
  if (r.code !== 0) throw new Error(`engine process: exit ${r.code}: ${r.stdout}${r.stderr}`.slice(0, 500));
}

const require = createRequire(import.meta.url);

/** The inspector CLI's entry (`mcp-inspector-cli`), or null when it is not installed. */
export function inspectorCliPath(): string | null {
  try {
    return join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'cli.js');
  } catch {
    return null;
  }
}

/**
 * `mcp-inspector-cli --cli <url> --method tools/call …`, the way a cron job would run it (installed,
 * without npx). Its working directory is its own build folder: 1.0.3 finds its package.json relative to
 * the *working directory* but imports it relative to itself, so from anywhere else it exits with
 * "Cannot find module …/@modelcontextprotocol/package.json" before sending a byte.
 */
export async function inspectorRun(cli: string, url: string): Promise<void> {
  const r = await runToEnd(
    process.execPath,
    [
      cli,
      '--cli',
      url,
      '--transport',
      'http',
      '--method',
      'tools/call',
      '--tool-name',
      TOOL.name,
      '--tool-arg',
      `pair=${TOOL.arguments.pair}`,
    ],
    {
      cwd: dirname(cli),
      env: { PATH: process.env.PATH },
    },
  );
  if (r.code !== 0 || !r.stdout.includes(EXPECTED_TEXT))
    throw new Error(`inspector-cli: exit ${r.code}: ${r.stdout}${r.stderr}`.slice(0, 500));
}
