/**
 * How fast `mcp-canary` starts, beside `@modelcontextprotocol/inspector-cli`: each contender is a fresh
 * Node process, run in interleaved rounds, timed from spawn to exit. The target (issue 11): the built
 * CLI's `--help` at most half of inspector-cli's own `--help`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HELP } from '../../functions/cli/help.ts';
import { runToEnd } from '../helpers/child.ts';
import { inspectorCliPath } from './contenders.ts';
import { interleave, median, type Contender } from './stats.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BUILT_CLI = join(ROOT, 'dist/cli/start.mjs');
const DEV_CLI = join(ROOT, 'functions/cli/mcp-canary.mjs');

export interface CliStartRow {
  readonly contender: string;
  readonly command: string;
  readonly medianMs: number;
  readonly runs: number;
}

export interface CliStart {
  readonly rows: CliStartRow[];
  /** Built `--help` ÷ inspector-cli `--help`; the target is ≤ 0.5. Null when inspector-cli is missing. */
  readonly helpRatio: number | null;
}

/** `npm run build` (the CLI as the package ships it), so the numbers are for what users install. */
export async function buildPackage(): Promise<void> {
  const r = await runToEnd(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/build.ts')], { cwd: ROOT });
  if (r.code !== 0 || !existsSync(BUILT_CLI)) throw new Error(`npm run build failed: ${r.stderr.slice(-800)}`);
}

interface Command {
  readonly contender: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** Exit code and a check of the output: a run that did the wrong thing is no timing. */
  readonly expect: { code: number; stdout?: (s: string) => boolean; stderr?: (s: string) => boolean };
}

function commands(): Command[] {
  const inspector = inspectorCliPath();
  return [
    { contender: 'node, empty script (the floor)', args: ['-e', '0'], expect: { code: 0 } },
    { contender: 'mcp-canary --help, built', args: [BUILT_CLI, '--help'], expect: { code: 0, stdout: (s) => s === `${HELP}\n` } },
    // A usage error is answered after the engine (SDK, zod) has loaded: the start every check pays.
    {
      contender: 'mcp-canary check (engine loaded), built',
      args: [BUILT_CLI, 'check', '--json'],
      expect: { code: 2, stderr: (s) => s.includes('missing <url>') },
    },
    {
      contender: 'mcp-canary --help, through tsx (before the build)',
      args: [DEV_CLI, '--help'],
      expect: { code: 0, stdout: (s) => s === `${HELP}\n` },
    },
    // inspector-cli 1.0.3 resolves its package.json from the working directory: run it from its own folder.
    ...(inspector
      ? [
          {
            contender: 'inspector-cli --help',
            args: [inspector, '--help'],
            cwd: dirname(inspector),
            expect: { code: 0, stdout: (s: string) => s.includes('Usage:') },
          },
        ]
      : []),
  ];
}

export async function measureCliStart(rounds: number): Promise<CliStart> {
  const list = commands();
  const env = { PATH: process.env.PATH, NO_COLOR: '1' };
  const contenders: Contender[] = list.map((c) => ({
    name: c.contender,
    run: async () => {
      const r = await runToEnd(process.execPath, c.args, { env, ...(c.cwd ? { cwd: c.cwd } : {}) });
      const good = r.code === c.expect.code && (c.expect.stdout?.(r.stdout) ?? true) && (c.expect.stderr?.(r.stderr) ?? true);
      if (!good) throw new Error(`${c.contender}: exit ${r.code}: ${r.stdout}${r.stderr}`.slice(0, 500));
    },
  }));
  const samples = await interleave(contenders, { rounds, warmupRounds: 2 });
  const rows = list.map((c) => ({
    contender: c.contender,
    command: `node ${c.args.map((a) => a.replace(ROOT, '').replace(/^.*node_modules\//, 'node_modules/')).join(' ')}`,
    medianMs: median(samples.get(c.contender)!),
    runs: samples.get(c.contender)!.length,
  }));
  const ms = (name: string) => rows.find((r) => r.contender === name)?.medianMs;
  const inspector = ms('inspector-cli --help');
  return { rows, helpRatio: inspector === undefined ? null : ms('mcp-canary --help, built')! / inspector };
}
