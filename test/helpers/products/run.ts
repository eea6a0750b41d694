/**
 * The test's side of a products run: one loopback-only network namespace per product, holding the
 * upstream stub, the product server and the canary's CLI runs (inside.ts), and what it printed back.
 *
 * `--pid --fork` makes inside.ts the namespace's first process: when it ends, the kernel kills
 * everything else in the namespace; `--kill-child` ends it when `unshare` itself is killed (by the
 * bound below). So no product server outlives its run, whatever it spawned.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from '../child.ts';
import type { Verdict } from '../../../functions/base/common/verdict.ts';
import type { InsideResult, StateRun } from './inside.ts';

const INSIDE = join(import.meta.dirname, 'inside.ts');
/** Far above a run's few seconds (firecrawl's is the longest, ~15 s): a hang fails, never blocks. */
export const RUN_BOUND_MS = 150_000;

export async function runInNamespace(product: string): Promise<InsideResult> {
  const r = await runToEnd(
    'unshare',
    ['--net', '--pid', '--fork', '--kill-child=SIGKILL', process.execPath, '--import', 'tsx', INSIDE, product],
    {
      killAfterMs: RUN_BOUND_MS,
    },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.code !== 0 || !line) {
    throw new Error(
      `the ${product} namespace run failed (exit ${r.code}, signal ${r.signal}):\n${r.stderr.slice(-3000)}${r.stdout.slice(-1000)}`,
    );
  }
  return JSON.parse(line.slice('RESULT '.length)) as InsideResult;
}

/**
 * Every product's namespace run, started all at once on the first ask: most of a run is waiting on
 * sockets and timers (firecrawl's server pauses a second on every request), so running them side by
 * side takes the longest one's time, not the sum. Each run's failure reaches only its own product.
 */
export function runsOnce(products: readonly string[]): (product: string) => Promise<InsideResult> {
  let runs: Map<string, Promise<InsideResult>> | undefined;
  return (product) => {
    runs ??= new Map(
      products.map((name) => {
        const run = runInNamespace(name);
        run.catch(() => {}); // reported by the product's own suite, which awaits it
        return [name, run];
      }),
    );
    return runs.get(product) ?? Promise.reject(new Error(`${product} is not among the runs (${products.join(', ')})`));
  };
}

/** The verdicts one CLI run printed with `--json`, by target name. */
export function verdictsOf(run: StateRun): Map<string, Verdict> {
  let parsed: Verdict[];
  try {
    parsed = JSON.parse(run.stdout) as Verdict[];
  } catch {
    throw new Error(`mcp-canary check printed no JSON for the ${run.state} upstream (exit ${run.code}):\n${run.stderr.slice(-2000)}`);
  }
  return new Map(parsed.map((v) => [v.target, v]));
}

/** Processes whose working directory is under `dir` (the product server runs in its run's own). */
export function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}
