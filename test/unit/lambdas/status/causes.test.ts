/**
 * Failure classes for the page (functions/lambdas/status/causes.ts): bounded per run, cached by a warm function,
 * looked up again only after a while when nothing was found, and only a class of the taxonomy ever
 * shown. The FilterLogEvents client is a shape stand-in here (it counts calls and answers run records);
 * the real reads against moto with real run logs are test/integration/lambdas/status/publish.test.ts.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { describe, expect, it } from 'vitest';
import type { StatusPayload } from '../../../../functions/base/config/schema/status-page.ts';
import { MAX_LOG_CALLS_PER_RUN, RETRY_UNKNOWN_MS, withCauses, type CauseCache } from '../../../../functions/lambdas/status/causes.ts';
import { buildSnapshot, type TargetHistory } from '../../../../functions/lambdas/status/snapshot.ts';

const MIN = 60_000;
const NOW = Date.UTC(2026, 11, 1, 12, 0);
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const payload: StatusPayload = {
  title: 'Status',
  fleet: 'McpCanary',
  namespace: 'McpCanary',
  failureThreshold: 3,
  days: 90,
  targets: [{ metric: 'search-prod', name: 'Search tools', regions: 3, quorum: 2, periodSeconds: 60, probeRegions: REGIONS }],
  maintenance: [],
};
/** Five past outages, an hour apart, each paged after 3 minutes. */
const history = (): TargetHistory[] => [
  {
    metric: 'search-prod',
    segments: [{ start: NOW - 6 * 60 * MIN, end: NOW, state: 'up' }],
    incidents: Array.from({ length: 5 }, (_, k) => {
      const start = NOW - (k + 1) * 60 * MIN;
      return {
        kind: 'outage' as const,
        start,
        end: start + 10 * MIN,
        pagedAt: start + 3 * MIN,
        failedRegions: 2,
        unhealthyRegions: 2,
        regions: 3,
      };
    }),
  },
];

/** A run log that answers every FilterLogEvents with failed runs of `failure` inside the asked window (or none). */
function runLog(failure: string | null) {
  const calls: Array<{ region: string; startTime: number; endTime: number }> = [];
  const logs = (region: string) =>
    ({
      send: async (command: { input: { startTime: number; endTime: number } }) => {
        const { startTime, endTime } = command.input;
        calls.push({ region, startTime, endTime });
        const record = (t: number) =>
          JSON.stringify({
            message: 'mcp-canary run',
            target: 'search-prod',
            probeRegion: region,
            startedAt: new Date(t).toISOString(),
            scheduledFor: new Date(t).toISOString(),
            verdict: { outcome: 'failed', failure },
          });
        return { events: failure === null ? [] : [startTime, startTime + MIN].map((t) => ({ message: record(t), timestamp: t + 5_000 })) };
      },
    }) as unknown as CloudWatchLogsClient;
  return { logs, calls };
}

describe('failure classes on the status page', () => {
  it('reads at most a few calls per run, newest incidents first, over the runs that paged; a warm function reads none again', async () => {
    const { logs, calls } = runLog('timeout');
    const cache: CauseCache = new Map();
    const runs: number[] = [];
    let out: TargetHistory[] = [];
    for (let k = 0; k < 4; k++) {
      const cost = { logCalls: 0 };
      out = await withCauses(payload, history(), { logs, now: NOW + k * 5 * MIN, cache }, cost);
      runs.push(cost.logCalls);
    }
    expect(MAX_LOG_CALLS_PER_RUN).toBe(6);
    expect(runs).toEqual([6, 6, 3, 0]);
    const newest = history()[0]!.incidents[0]!;
    expect(calls.slice(0, 3).map((c) => [c.startTime, c.endTime])).toEqual(Array(3).fill([newest.start, newest.pagedAt]));
    expect(out[0]!.incidents.map((i) => i.failureClass)).toEqual(Array(5).fill('timeout'));
    const page = buildSnapshot(payload, out, { now: NOW + 20 * MIN, upcomingDays: 14 });
    expect(page.incidents.past.map((i) => i.summary)).toEqual(Array(5).fill(expect.stringMatching(/: it did not answer in time\.$/)));
  });

  it('looks an incident with no class found up again only after a while, and forgets incidents no longer shown', async () => {
    const { logs } = runLog(null);
    const cache: CauseCache = new Map();
    const one = (now: number, histories = history().map((h) => ({ ...h, incidents: h.incidents.slice(0, 1) }))) => {
      const cost = { logCalls: 0 };
      return withCauses(payload, histories, { logs, now, cache }, cost).then(() => cost.logCalls);
    };
    expect(await one(NOW)).toBe(3);
    expect(await one(NOW + 5 * MIN)).toBe(0);
    expect(await one(NOW + RETRY_UNKNOWN_MS)).toBe(3);
    await one(NOW + RETRY_UNKNOWN_MS, [{ ...history()[0]!, incidents: [] }]);
    expect(cache.size).toBe(0);
  });

  it.each(['constructor', '__proto__', '<script>alert(1)</script>', 'toString', 'not-a-class'])(
    'never shows a class outside the taxonomy from a log line: %s',
    async (failure) => {
      const { logs } = runLog(failure);
      const out = await withCauses(payload, history(), { logs, now: NOW, cache: new Map() }, { logCalls: 0 });
      const page = buildSnapshot(payload, out, { now: NOW, upcomingDays: 14 });
      const json = JSON.stringify(page);
      expect(json).not.toContain(failure);
      expect(page.incidents.past.every((i) => i.failureClass === null && i.summary.endsWith(' min).'))).toBe(true);
    },
  );
});
