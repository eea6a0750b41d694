/**
 * Joining the retention tiers' reads (functions/lambdas/status/gather.ts): a newer read wins where they overlap,
 * an older read counts only before it, so no stretch is missing or counted twice when a cached tier ended
 * up to an hour ago. The reads themselves are proven against moto (test/integration/lambdas/status/publish.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { joined } from '../../../../functions/lambdas/status/gather.ts';
import type { HistoryIncident } from '../../../../functions/lambdas/status/snapshot.ts';

describe('joining tier reads', () => {
  it('cuts an older read where the newer one starts, segments and incidents alike', () => {
    const h = joined('t', [
      {
        target: 't',
        startMs: 80,
        joinWithinMs: 0,
        segments: [{ start: 80, end: 120, state: 'down' }],
        incidents: [{ kind: 'outage', start: 80, end: null, failedRegions: 2, unhealthyRegions: 2, regions: 3 }],
      },
      {
        target: 't',
        startMs: 0,
        joinWithinMs: 0,
        segments: [
          { start: 0, end: 50, state: 'up' },
          { start: 50, end: 100, state: 'degraded' },
        ],
        incidents: [
          { kind: 'degraded', start: 50, end: 100, failedRegions: 0, unhealthyRegions: 1, regions: 3 },
          { kind: 'outage', start: 90, end: 100, failedRegions: 2, unhealthyRegions: 2, regions: 3 },
        ],
      },
    ]);
    expect(h.segments).toEqual([
      { start: 0, end: 50, state: 'up' },
      { start: 50, end: 80, state: 'degraded' },
      { start: 80, end: 120, state: 'down' },
    ]);
    expect(h.incidents.map((i) => [i.kind, i.start, i.end])).toEqual([
      ['degraded', 50, 80],
      ['outage', 80, null],
    ]);
  });

  // The tiers as gather.ts reads them, at a 1-minute period, 5-minute at 15 days, 1-hour at 63 (ms as minutes here).
  const H = 60;
  const read = (startMs: number, joinWithinMs: number, incidents: HistoryIncident[]) => ({
    target: 't',
    startMs,
    joinWithinMs,
    segments: [],
    incidents,
  });
  const outage = (start: number, end: number | null, failedRegions = 2, failureClass?: string): HistoryIncident => ({
    kind: 'outage',
    start,
    end,
    failedRegions,
    unhealthyRegions: failedRegions,
    regions: 3,
    ...(failureClass ? { failureClass } : {}),
  });

  it("one outage across a tier boundary is one incident: open at the older tier's end, opened again at the newer tier's start", () => {
    // 15-day boundary at 1000: the 5-minute tier [0, 1000) sees it open at its end; the 1-minute tier sees it from 1000 to 1030.
    const h = joined('t', [read(1000, 5, [outage(1000, 1030, 3, 'timeout')]), read(0, 25, [outage(900, 1000, 2)])]);
    expect(h.incidents).toEqual([outage(900, 1030, 3, 'timeout')]);
  });

  it('joins across an overlap too, and when the newer tier needs its first points to breach again', () => {
    // The 2-day boundary: the cached tier ran an hour past the recent tier's start (cut at 1000, the older read up to 1000 + H).
    const h = joined('t', [read(1000, 5, [outage(1002, null, 2)]), read(0, 5, [outage(980, 1000 + H, 2, 'auth')])]);
    expect(h.incidents).toEqual([outage(980, null, 2, 'auth')]);
  });

  it('an outage over three tiers (90 → 63 → 15 days) is still one incident', () => {
    const h = joined('t', [
      read(2000, 5, [outage(2000, 2010, 1)]),
      read(1000, 25, [outage(1000, 2000, 3)]),
      read(0, 300, [outage(500, 1000, 2)]),
    ]);
    expect(h.incidents).toEqual([outage(500, 2010, 3)]);
  });

  it('keeps two outages two: one resolved before the boundary, or a new one well after it, and never joins a degraded stretch to an outage', () => {
    const h = joined('t', [
      read(1000, 5, [outage(1000, 1010), outage(1100, 1120)]),
      read(0, 25, [outage(900, 990), { kind: 'degraded', start: 950, end: 1000, failedRegions: 0, unhealthyRegions: 1, regions: 3 }]),
    ]);
    expect(h.incidents.map((i) => [i.kind, i.start, i.end])).toEqual([
      ['outage', 900, 990],
      ['degraded', 950, 1000],
      ['outage', 1000, 1010],
      ['outage', 1100, 1120],
    ]);
    const late = joined('t', [read(1000, 5, [outage(1006, 1010)]), read(0, 25, [outage(900, 1000)])]);
    expect(late.incidents.map((i) => [i.start, i.end])).toEqual([
      [900, 1000],
      [1006, 1010],
    ]);
  });
});
