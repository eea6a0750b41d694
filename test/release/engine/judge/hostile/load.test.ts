/** One process judging 200 endpoints at once: bounded, correct, and leaving nothing running. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runToEnd } from '../../../../helpers/child.ts';

const SCRIPT = join(import.meta.dirname, '../../../../helpers/hostile/load-run.ts');
/** Far above the expected few seconds: reaching it means the process did not exit by itself. */
const KILL_AFTER_MS = 60_000;

describe('200 endpoints in one process', () => {
  it('finish within the slowest budget + 20 % (beyond the lateness a loaded machine adds), every verdict by its rule, and the process exits by itself', async () => {
    const { code, signal, stdout, stderr } = await runToEnd(process.execPath, ['--import', 'tsx', SCRIPT], { killAfterMs: KILL_AFTER_MS });

    expect({ code, signal, stderr: stderr.slice(0, 500) }).toEqual({ code: 0, signal: null, stderr: '' });
    const summary = JSON.parse(stdout) as { endpoints: number; elapsedMs: number; budgetMs: number; lateMs: number; wrong: string[] };
    expect(summary.endpoints).toBe(200);
    expect(summary.wrong).toEqual([]);
    expect(summary.elapsedMs).toBeLessThanOrEqual(summary.budgetMs * 1.2 + summary.lateMs);
    console.log(`load: ${JSON.stringify(summary)}`);
  });
});
