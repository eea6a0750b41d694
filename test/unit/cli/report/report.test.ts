/**
 * The report built from a history made by hand: the figures of a known window (written out below, not
 * recomputed), the text table, the JSON shape, and an HTML page that is self-contained and shows nothing
 * of the config but names and times.
 */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import type { FleetHistory } from '../../../../functions/io/history/read.ts';
import { buildTimeline, type PeriodSample } from '../../../../functions/io/history/timeline.ts';
import { renderHtml } from '../../../../functions/cli/report/html.ts';
import { buildReport } from '../../../../functions/cli/report/report.ts';
import { renderText } from '../../../../functions/cli/report/text.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 30, 10, 0);
const URL = 'https://secret-host.example.com/mcp?key=hunter2';
const fleet = parseFleet({
  homeRegion: 'us-east-1',
  slo: { objective: 99 },
  targets: [{ name: 'rates', url: URL, headers: { Authorization: 'Bearer hunter2' } }],
});

/** 1 region, quorum 1, N 3: 100 minutes; down 10..20 (10 min); maintenance 50..60 over a failure; rest up. */
function history(openAtEnd = false): FleetHistory {
  const samples: PeriodSample[] = Array.from({ length: 100 }, (_, i) => ({
    failing: (i >= 10 && i < 20) || (i >= 50 && i < 60) || (openAtEnd && i >= 90) ? 1 : 0,
    reports: 1,
  }));
  const rule = { regions: 1, quorum: 1, runsInARow: 3, periodSeconds: 60 };
  const maintenance = [{ name: 'deploy', startMs: T0 + 50 * MIN, endMs: T0 + 60 * MIN }];
  const timeline = buildTimeline({ rule, startMs: T0, samples, maintenance });
  return {
    fleetName: 'McpCanary',
    namespace: 'McpCanary',
    homeRegion: 'us-east-1',
    days: 1,
    startMs: T0,
    endMs: T0 + 100 * MIN,
    endsNow: true,
    alarmHistoryFromMs: T0,
    alarms: { looked: 1, found: 1, listError: null },
    runLog: { logGroupName: '/mcp-canary/McpCanary/run', lookups: 2, unread: [] },
    cost: { requests: 1, metrics: 2, datapoints: 200, alarmHistoryCalls: 1, describeAlarmsCalls: 1, logCalls: 0 },
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
        incidents: timeline.incidents.map((i, n) => ({
          ...i,
          alarm: n === 0 ? 'paged' : 'not-paged',
          alarmNote: null,
          failureClassNote: 'no failed run logged in the periods that paged',
        })),
        maintenance,
        transitions: [],
      },
    ],
  };
}

describe('buildReport', () => {
  it('holds the hand-computed figures: 90 judged minutes, 10 down, budget 0.9 min of which 10 spent', () => {
    const r = buildReport(history(), fleet);
    const t = r.targets[0]!;
    expect(t.seconds).toEqual({ up: 80 * 60, degraded: 0, down: 10 * 60, maintenance: 10 * 60, noData: 0, judged: 90 * 60 });
    expect(t.availabilityPercent).toBeCloseTo((80 / 90) * 100, 9);
    expect(t.slo!.errorBudget).toMatchObject({ allowedSeconds: 54, downSeconds: 600, leftSeconds: -546 });
    expect(t.timeToResolve).toEqual({ incidents: 1, open: 0, meanSeconds: 600, maxSeconds: 600 });
    expect(t.incidents.map((i) => [i.start, i.end, i.maintenance, i.alarm])).toEqual([
      ['2026-11-30T10:10:00.000Z', '2026-11-30T10:20:00.000Z', 'none', 'paged'],
      ['2026-11-30T10:50:00.000Z', '2026-11-30T11:00:00.000Z', 'inside', 'not-paged'],
    ]);
    expect(r.cost).toMatchObject({ getMetricDataRequests: 1, metricsRequested: 2, describeAlarmHistoryCalls: 1 });
  });

  it('prints a table row per target and the cost, with nothing of the config but the name', () => {
    const text = renderText(buildReport(history(), fleet));
    // One incident counted, and the one wholly inside maintenance named beside it: the list below shows both.
    expect(text).toMatch(/^rates\s+88\.889 %\s+99 %\s+-1011\.1 % \(-9m\)\s+1 \(\+1 in maintenance\)\s+10m\s+10m\s+10m\s+0m\s+10m\s+0m$/m);
    expect(text).toMatch(/^mcp-canary report: fleet McpCanary \(the config's name\), namespace McpCanary in us-east-1, 1 day\(s\)/);
    expect(text).toContain('Cost: 1 GetMetricData request(s) for 2 metric(s)');
    expect(text).toContain('inside maintenance: not counted');
    expect(text).not.toMatch(/hunter2|secret-host/);
  });

  it('writes one self-contained page: no script, no external reference, escaped names, the charts as inline SVG', () => {
    const h = history();
    const hostile = { ...h, fleetName: '<img src=x onerror=alert(1)>' };
    const html = renderHtml(buildReport(hostile, fleet));
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|<[a-z]+[^>]*\s(src|href)=|url\(|@import|https?:/i);
    expect(html).not.toMatch(/hunter2|secret-host/);
    expect(html).toContain('&#60;img');
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('<title>down: 2026-11-30 10:10 UTC to 2026-11-30 10:20 UTC</title>');
  });

  it('says "still open" only when the window ends now; at a past --end, open at the end of the window', () => {
    // Prepare: down from minute 90 to the window's end (100), once with a window ending now, once at a past --end.
    const now = buildReport(history(true), fleet);
    const past = buildReport({ ...history(true), endsNow: false }, fleet);
    expect(now.targets[0]!.incidents.at(-1)!.end).toBeNull();
    // Act
    const texts = [renderText(now), renderText(past)];
    const pages = [renderHtml(now), renderHtml(past)];
    // Assess
    expect(past.window.endsNow).toBe(false);
    expect(texts[0]).toMatch(/→ still open/);
    expect(texts[1]).toMatch(/→ open at the end of the window/);
    expect(texts[1]).not.toContain('still open');
    expect(pages[0]).toContain('<td>still open</td>');
    expect(pages[1]).toContain('<td>open at the end of the window</td>');
    expect(pages[1]).not.toContain('still open');
  });

  it('says what it could not find, per incident and for the fleet, and never not-paged for it', () => {
    // Prepare: the fleet read under the default name, whose alarms and run log are not there.
    const h = history();
    const lost: FleetHistory = {
      ...h,
      alarms: { looked: 1, found: 0, listError: null },
      runLog: {
        logGroupName: '/mcp-canary/McpCanary/run',
        lookups: 2,
        unread: [{ region: 'us-east-1', problem: 'not-found', error: 'ResourceNotFoundException' }],
      },
      targets: h.targets.map((t) => ({
        ...t,
        incidents: t.incidents.map((i) => ({
          ...i,
          alarm: 'unknown' as const,
          alarmNote: 'no alarm McpCanary/rates/critical in us-east-1',
          failureClass: null,
          failureClassNote: 'run log /mcp-canary/McpCanary/run not found in us-east-1',
        })),
      })),
    };
    // Act
    const r = buildReport(lost, fleet, 'default');
    const text = renderText(r);
    const html = renderHtml(r);
    // Assess
    expect(r.warnings).toEqual([
      'no alarm of fleet McpCanary found in us-east-1 (looked for McpCanary/<target>/critical of 1 target(s); McpCanary is the default: the config has no name): whether an incident paged is unknown; if the fleet was deployed under another name, set `name` in the config or pass --fleet NAME',
      'run log /mcp-canary/McpCanary/run not found in us-east-1 (McpCanary is the default: the config has no name): failure classes unknown there; if the fleet was deployed under another name, set `name` in the config or pass --fleet NAME',
    ]);
    expect(text).toContain(
      'class unknown: run log /mcp-canary/McpCanary/run not found in us-east-1; alarm unknown: no alarm McpCanary/rates/critical in us-east-1',
    );
    expect(text).toMatch(/^Warning: no alarm of fleet McpCanary found in us-east-1/m);
    expect(html).toContain('<td>alarm unknown: no alarm McpCanary/rates/critical in us-east-1</td>');
    expect(html).toContain('Warning: run log /mcp-canary/McpCanary/run not found in us-east-1');
    for (const out of [text, html]) expect(out).not.toMatch(/not-paged|not paged|no failed run/);
  });

  it("says a class is known to be absent only when every region's run log was read", () => {
    const text = renderText(buildReport(history(), fleet));
    // The second incident's log was read and held no failed run: said as such, not as unknown.
    expect(text).toMatch(/10:50 UTC → \S+ \S+ UTC {2}10m {2}no failed run logged in the periods that paged; not-paged; inside maintenance/);
  });
});
