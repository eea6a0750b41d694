/**
 * 200 endpoints judged at once in one process: healthy servers of both eras, slow ones and hanging
 * ones (served from a child process). Prints one JSON summary line and then simply returns: if any
 * socket or timer leaked, the process would not exit by itself, and the test that spawns this fails.
 */
import { join } from 'node:path';
import { Target } from '../../../functions/base/config/schema/target.ts';
import { judge } from '../../../functions/engine/judge/judge.ts';
import { startServerProcess } from '../child.ts';
import { withLateness } from '../lateness.ts';

const BUDGET_MS = 20_000;
/**
 * Far above the slow server's 2.5 s answer. Under a loaded machine (CI runs other test files beside
 * this one) both processes are descheduled, and each of the slow answers was seen to take over 4 s
 * end to end: a 4 s timeout then judged a slow server as hanging. 8 s keeps slow and hanging apart
 * by 5.5 s of lateness while the hanging servers still fail by their timeout, well within the budget.
 */
const TIMEOUT_MS = 8_000;
const DEGRADED_MS = 6_000;
/**
 * Three answers of the slow server take 7.5 s: over the degraded threshold, within the budget. A
 * healthy server's run takes well under 3.5 s on a quiet machine; on a loaded one it may cross the
 * threshold, and is then degraded by the same rule: each verdict is judged against its own duration.
 */
const SLOW_ANSWER_MS = 2_500;

type Kind = 'modern' | 'legacy' | 'slow' | 'hanging';
const servers = await startServerProcess<Record<Kind, string>>(join(import.meta.dirname, 'load-servers.ts'), [String(SLOW_ANSWER_MS)]);
const { urls } = servers;

/** What the degraded rule makes of an answered run that took `ms`. */
const answered = (ms: number) => ({ outcome: ms > DEGRADED_MS ? 'degraded' : 'healthy', failure: null });
const expected: Record<Kind, (ms: number) => { outcome: string; failure: string | null }> = {
  modern: answered,
  legacy: answered,
  // Never healthy: the server alone takes 7.5 s.
  slow: () => ({ outcome: 'degraded', failure: null }),
  hanging: () => ({ outcome: 'failed', failure: 'timeout' }),
};
const mix: Kind[] = [...Array(60).fill('modern'), ...Array(60).fill('legacy'), ...Array(40).fill('slow'), ...Array(40).fill('hanging')];

const started = performance.now();
const { value: verdicts, lateMs } = await withLateness(() =>
  Promise.all(
    mix.map((kind, i) =>
      judge(
        Target.parse({
          name: `${kind}-${i}`,
          url: `${urls[kind]}?n=${i}`,
          tool: { name: 'get_rate' },
          timeoutMs: TIMEOUT_MS,
          budgetMs: BUDGET_MS,
          degradedMs: DEGRADED_MS,
        }),
      ).then((v) => ({ kind, v })),
    ),
  ),
);
const elapsedMs = performance.now() - started;

const wrong = verdicts.flatMap(({ kind, v }) => {
  const want = expected[kind](v.durationMs);
  return v.outcome === want.outcome && v.failure === want.failure
    ? []
    : [`${v.target}: expected ${want.outcome}/${want.failure} after ${v.durationMs} ms, got ${v.outcome}/${v.failure} (${v.detail})`];
});
const byKind = (k: Kind) => verdicts.filter((x) => x.kind === k).map((x) => x.v.durationMs);

await servers.stop();
process.stdout.write(
  `${JSON.stringify({
    endpoints: verdicts.length,
    elapsedMs: Math.round(elapsedMs),
    budgetMs: BUDGET_MS,
    lateMs,
    degradedHealthy: verdicts.filter(({ kind, v }) => (kind === 'modern' || kind === 'legacy') && v.outcome === 'degraded').length,
    slowestRunMs: Math.max(...verdicts.map(({ v }) => v.durationMs)),
    healthyRunMsMax: Math.max(...byKind('modern'), ...byKind('legacy')),
    wrong,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
