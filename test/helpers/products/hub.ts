/**
 * The test's side of the real-gateway run (hub-inside.ts): one loopback-only network namespace holding
 * the backends, mcp-hub, its Streamable HTTP front, moto_server and the scheduled runs, and what it
 * printed back. `--pid --fork --kill-child` as for the products (run.ts): no process outlives the run.
 */
import { join } from 'node:path';
import { runToEnd } from '../child.ts';
import type { HubResult } from './hub-inside.ts';

const INSIDE = join(import.meta.dirname, 'hub-inside.ts');
/** Far above the run's ~15 s (moto's start, two gateway processes, four runs): a hang fails, never blocks. */
export const HUB_RUN_BOUND_MS = 150_000;

export async function runHubInNamespace(): Promise<HubResult> {
  const r = await runToEnd('unshare', ['--net', '--pid', '--fork', '--kill-child=SIGKILL', process.execPath, '--import', 'tsx', INSIDE], {
    killAfterMs: HUB_RUN_BOUND_MS,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.code !== 0 || !line)
    throw new Error(
      `the gateway's namespace run failed (exit ${r.code}, signal ${r.signal}):\n${r.stderr.slice(-3000)}${r.stdout.slice(-1000)}`,
    );
  return JSON.parse(line.slice('RESULT '.length)) as HubResult;
}
