/**
 * A 15-day `report --html` of a target that flapped minute by minute for five days: the page draws a
 * bounded number of shapes (not one rect per interval, which made it megabytes), says the span flapped,
 * and loses no downtime (the merged shapes add up to the report's seconds). Counted, not timed.
 */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import type { FleetHistory } from '../../../../functions/io/history/read.ts';
import { buildTimeline, type PeriodSample } from '../../../../functions/io/history/timeline.ts';
import { INCIDENT_ROWS_SHOWN, renderHtml, STRIP_COLUMNS, stripShapes } from '../../../../functions/cli/report/html.ts';
import { buildReport } from '../../../../functions/cli/report/report.ts';

const MIN = 60_000;
const DAYS = 15;
const T0 = Date.UTC(2026, 10, 16, 0, 0);
const fleet = parseFleet({
  homeRegion: 'us-east-1',
  slo: { objective: 99 },
  targets: [{ name: 'rates', url: 'https://rates.example.com/mcp' }],
});

/** 1 region, quorum 1, N 1, 1-minute points: down every other minute for days 0–4, then up, with 3 hours down on day 10. */
function history(): FleetHistory {
  const steady = { from: 10 * 1440, to: 10 * 1440 + 180 };
  const samples: PeriodSample[] = Array.from({ length: DAYS * 1440 }, (_, i) => ({
    failing: (i < 5 * 1440 && i % 2 === 0) || (i >= steady.from && i < steady.to) ? 1 : 0,
    reports: 1,
  }));
  const rule = { regions: 1, quorum: 1, runsInARow: 1, periodSeconds: 60 };
  const timeline = buildTimeline({ rule, startMs: T0, samples });
  return {
    fleetName: 'McpCanary',
    namespace: 'McpCanary',
    homeRegion: 'us-east-1',
    days: DAYS,
    startMs: T0,
    endMs: T0 + DAYS * 1440 * MIN,
    endsNow: true,
    alarmHistoryFromMs: null,
    alarms: null,
    runLog: null,
    cost: { requests: 1, metrics: 2, datapoints: 2 * DAYS * 1440, alarmHistoryCalls: 0, describeAlarmsCalls: 0, logCalls: 0 },
    targets: [
      {
        target: 'rates',
        rule,
        resolution: {
          periodSeconds: 60,
          runsPerPeriod: 1,
          exact: true,
          note: 'read run by run (60 s points): the paging rule replayed exactly',
        },
        timeline,
        incidents: timeline.incidents.map((i) => ({
          ...i,
          alarm: 'unknown' as const,
          alarmNote: 'alarm history not read',
          failureClassNote: 'run log not read',
        })),
        maintenance: [],
        transitions: [],
      },
    ],
  };
}

describe('a flapping target over 15 days in the HTML report', () => {
  const report = buildReport(history(), fleet);
  const t = report.targets[0]!;

  it('draws a bounded number of shapes, however often it flapped', () => {
    // Prepare: the timeline itself has one interval per minute of flapping.
    expect(t.intervals.length).toBeGreaterThan(7000);
    // Act
    const html = renderHtml(report);
    // Assess: at most two rects (colour and stripes) per shape, at most two shapes per column (a wide
    // one, and a narrow run cut short by it), and the burn-down one point per unit of its 1000 wide.
    expect(html.match(/<rect /g)!.length).toBeLessThanOrEqual(4 * STRIP_COLUMNS + 2);
    const points = html.match(/<polyline points="([^"]*)"/)![1]!.split(' ');
    expect(points.length).toBeLessThanOrEqual(1002);
    // The incident table lists the longest (the three hours among them), and says where the rest are.
    expect(t.incidents.length).toBeGreaterThan(3600);
    expect(html.match(/<tr>/g)!.length).toBe(INCIDENT_ROWS_SHOWN + 1);
    expect(html).toContain(`the ${INCIDENT_ROWS_SHOWN} longest of ${t.incidents.length} (all of them are in --json)`);
    expect(html).toContain('<td>2026-11-26 00:00 UTC</td><td>2026-11-26 03:00 UTC</td><td>3h 00m</td>');
    // The whole page: tens of kilobytes, not the half megabyte that one row per incident made.
    expect(html.length).toBeLessThan(150_000);
  });

  it('says the span flapped, and keeps a steady outage as it was', () => {
    const html = renderHtml(report);
    expect(html).toMatch(
      /<title>flapping: 2026-11-16 \d\d:\d\d UTC to 2026-11-16 \d\d:\d\d UTC: down \d+m \(\d+ times\), up \d+m \(\d+ times\)<\/title>/,
    );
    expect(html).toContain('<title>down: 2026-11-26 00:00 UTC to 2026-11-26 03:00 UTC</title>');
    expect(html).toContain('fill="url(#flap-0)"');
  });

  it('loses no time: the shapes add up to the report’s seconds of each state', () => {
    const shapes = stripShapes(t.intervals);
    const total = (state: 'up' | 'down') => shapes.reduce((n, sh) => n + (sh.states.get(state)?.ms ?? 0), 0) / 1000;
    expect(total('down')).toBe(t.seconds.down);
    expect(total('up')).toBe(t.seconds.up);
    // The flapping: one down minute of every two, for five days, and the three hours.
    expect(t.seconds.down).toBe((5 * 720 + 180) * 60);
  });
});
