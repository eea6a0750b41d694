/**
 * 200 endpoints judged at once in one process: healthy servers of both eras, slow ones and hanging
 * ones (served from a child process). Prints one JSON summary line and then simply returns: if any
 * socket or timer leaked, the process would not exit by itself, and the test that spawns this fails.
 */
import { join } from 'node:path';
import { Target } from '../../../functions/config/target.ts';
import { judge } from '../../../functions/judge/judge.ts';
import { startServerProcess } from '../child.ts';

const BUDGET_MS = 12_000;
const TIMEOUT_MS = 4_000;
const DEGRADED_MS = 6_000;
/**
 * Three answers of the slow server take 7.5 s: over the degraded threshold, within the budget. The
 * healthy runs took under 2.6 s here even with the rest of the suite running beside them; the wide gap
 * keeps a busy CI machine from turning a healthy run into a degraded one.
 */
const SLOW_ANSWER_MS = 2_500;

type Kind = 'modern' | 'legacy' | 'slow' | 'hanging';
const servers = await startServerProcess<Record<Kind, string>>(join(import.meta.dirname, 'load-servers.ts'), [String(SLOW_ANSWER_MS)]);
const { urls } = servers;

const expected: Record<Kind, { outcome: string; failure: string | null }> = {
  modern: { outcome: 'healthy', failure: null },
  legacy: { outcome: 'healthy', failure: null },
  slow: { outcome: 'degraded', failure: null },
  hanging: { outcome: 'failed', failure: 'timeout' },
};
const mix: Kind[] = [...Array(60).fill('modern'), ...Array(60).fill('legacy'), ...Array(40).fill('slow'), ...Array(40).fill('hanging')];

const started = performance.now();
const verdicts = await Promise.all(
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
);
const elapsedMs = performance.now() - started;

const wrong = verdicts
  .filter(({ kind, v }) => v.outcome !== expected[kind].outcome || v.failure !== expected[kind].failure)
  .map(
    ({ kind, v }) =>
      `${v.target}: expected ${expected[kind].outcome}/${expected[kind].failure}, got ${v.outcome}/${v.failure} (${v.detail})`,
  );
const byKind = (k: Kind) => verdicts.filter((x) => x.kind === k).map((x) => x.v.durationMs);

await servers.stop();
process.stdout.write(
  `${JSON.stringify({
    endpoints: verdicts.length,
    elapsedMs: Math.round(elapsedMs),
    budgetMs: BUDGET_MS,
    slowestRunMs: Math.max(...verdicts.map(({ v }) => v.durationMs)),
    healthyRunMsMax: Math.max(...byKind('modern'), ...byKind('legacy')),
    wrong,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
