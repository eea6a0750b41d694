/**
 * The snapshot and its words: each state the page must show, incidents in plain words with their times,
 * 90 day bars with text, uptime with maintenance left out, maintenance past/now/upcoming, hidden targets
 * and config names never in it.
 */
import { describe, expect, it } from 'vitest';
import { statusPayload as payloadOf, STATUS_DAYS } from '../../../../functions/base/config/schema/status-page.ts';
import { buildSnapshot } from '../../../../functions/lambdas/status/snapshot.ts';
import { durationWords, incidentWords, spanWords } from '../../../../functions/lambdas/status/words.ts';
import { at, MARKUP_NAME, NOW, statusHistories, statusPayload } from '../../../helpers/status/fixtures.ts';

const snapshot = () => buildSnapshot(statusPayload(), statusHistories(), { now: NOW, upcomingDays: 14 });

describe('the status snapshot', () => {
  it('shows each target in its state now', () => {
    const s = snapshot();
    expect(Object.fromEntries(s.targets.map((t) => [t.name, t.state]))).toEqual({
      'Search tools': 'up',
      'Rates API': 'down',
      'Docs search': 'degraded',
      Ticketing: 'maintenance',
      [MARKUP_NAME]: 'no_data',
    });
    expect(s.overall).toBe('down');
  });

  it('says incidents in plain words, open ones first and separately', () => {
    const s = snapshot();
    expect(s.incidents.open.map((i) => i.summary)).toEqual([
      'Docs search is degraded for agents from 1 of 3 regions since 14:40 UTC (20 min so far).',
      "Rates API is failing for agents from 2 of 3 regions since 14:32 UTC (28 min so far): it refused the canary's credentials.",
    ]);
    expect(s.incidents.past.map((i) => i.summary)).toEqual([
      'Search tools failed for agents from 2 of 3 regions, 14:02–14:31 UTC (29 min).',
      'Search tools failed for agents from all 3 regions, 28 Nov 2026 23:50 – 29 Nov 2026 00:20 UTC (30 min): the checked tool answered with an error.',
    ]);
    expect(s.incidents.past[0]).toMatchObject({ startedAt: '2026-12-01T14:02:00.000Z', endedAt: '2026-12-01T14:31:00.000Z', minutes: 29 });
  });

  it('has a bar for each of 90 days, oldest first, with a text equivalent, and uptime without maintenance', () => {
    const s = snapshot();
    const search = s.targets.find((t) => t.name === 'Search tools')!;
    expect(search.days).toHaveLength(STATUS_DAYS);
    expect(search.days.at(-1)!.date).toBe('2026-12-01');
    expect(search.days[0]!.date).toBe('2026-09-03');
    expect(search.days.at(-1)).toMatchObject({ state: 'down', downMinutes: 29 });
    expect(search.days.at(-1)!.text).toMatch(/^2026-12-01: down 29 min, 9\d\.\d+ % up$/);
    // Sunday 29 Nov 02:00–03:00 was maintenance: shown, but not counted either way.
    const sunday = search.days.find((d) => d.date === '2026-11-29')!;
    expect(sunday).toMatchObject({ state: 'down', downMinutes: 20, maintenanceMinutes: 60 });
    expect(sunday.uptime).toBe(Math.floor(((1380 - 20) / 1380) * 10_000) / 100);
    const ticketing = s.targets.find((t) => t.name === 'Ticketing')!;
    expect(ticketing.days.at(-1)).toMatchObject({ state: 'maintenance', uptime: 100, maintenanceMinutes: 30 });
    expect(ticketing.uptime).toBe(100);
    // 59 minutes down in 90 days less 13 hours of maintenance.
    const judged = 89 * 1440 + 15 * 60 - 13 * 60;
    expect(search.uptime).toBe(Math.floor(((judged - 59) / judged) * 10_000) / 100);
    const none = s.targets.find((t) => t.name === MARKUP_NAME)!;
    expect(none.days.every((d) => d.state !== 'down')).toBe(true);
  });

  it('lists maintenance now, upcoming and past', () => {
    const s = snapshot();
    expect(s.maintenance.now.map((m) => m.summary)).toEqual(['Maintenance of Ticketing, until 16:30 UTC, started 14:30 UTC (2 h).']);
    expect(s.maintenance.upcoming.map((m) => m.startsAt)).toEqual(['2026-12-06T02:00:00.000Z', '2026-12-13T02:00:00.000Z']);
    expect(s.maintenance.past[0]).toMatchObject({ startsAt: '2026-11-29T02:00:00.000Z', targets: ['Search tools'] });
    expect(s.maintenance.past).toHaveLength(13);
  });

  it('says no data, not up, when the canary has been silent for three periods', () => {
    const histories = statusHistories().map((h) => (h.metric === 'tickets-prod' ? { ...h, segments: [] } : h));
    const payload = { ...statusPayload(), maintenance: [] };
    const s = buildSnapshot(payload, histories, { now: NOW, upcomingDays: 14 });
    expect(s.targets.find((t) => t.name === 'Ticketing')).toMatchObject({ state: 'no_data', uptime: null });
  });
});

describe('overlapping maintenance windows', () => {
  it('leaves their union out of uptime, once: down after the later window ends still counts', () => {
    // Prepare: down 02:00–04:00; one window 02:00–03:00, another 02:30–03:30 (together 90 min, not 120).
    const payload = {
      ...statusPayload(),
      targets: [statusPayload().targets[0]!],
      maintenance: [
        { schedule: 'at(2026-12-01T02:00)', duration: '1 hour', targets: ['Search tools'] },
        { schedule: 'at(2026-12-01T02:30)', duration: '1 hour', targets: ['Search tools'] },
      ],
    };
    const day = at(0, 0);
    const history = {
      metric: 'search-prod',
      segments: [
        { start: day, end: at(2, 0), state: 'up' as const },
        { start: at(2, 0), end: at(4, 0), state: 'down' as const },
        { start: at(4, 0), end: NOW, state: 'up' as const },
      ],
      incidents: [],
    };
    // Act
    const today = buildSnapshot(payload, [history], { now: NOW, upcomingDays: 14 }).targets[0]!.days.at(-1)!;
    // Assess: 15 h of the day, 90 min maintenance, 30 min down (03:30–04:00) of the 810 judged.
    expect(today).toMatchObject({ state: 'down', downMinutes: 30, maintenanceMinutes: 90 });
    expect(today.uptime).toBe(Math.floor(((810 - 30) / 810) * 10_000) / 100);
  });
});

describe('an outage during maintenance', () => {
  // Prepare: one target with a window 02:00–03:00 today; outages wholly inside it, partly in it, and outside it.
  const payload = {
    ...statusPayload(),
    targets: [statusPayload().targets[0]!],
    maintenance: [{ schedule: 'at(2026-12-01T02:00)', duration: '1 hour', targets: ['Search tools'] }],
  };
  const outage = (start: number, end: number) => ({
    kind: 'outage' as const,
    start,
    end,
    failedRegions: 3,
    unhealthyRegions: 3,
    regions: 3,
  });
  const history = {
    metric: 'search-prod',
    segments: [{ start: at(0, 0), end: NOW, state: 'up' as const }],
    incidents: [outage(at(2, 10), at(2, 40)), outage(at(2, 50), at(3, 20)), outage(at(5, 0), at(5, 15))],
  };

  it('says in plain words (and in status.json) that it was inside the window and not counted, as the report does', () => {
    // Act
    const past = buildSnapshot(payload, [history], { now: NOW, upcomingDays: 14 }).incidents.past;
    // Assess: newest first.
    expect(past.map((i) => [i.maintenance, i.countedMinutes])).toEqual([
      ['none', 15],
      ['partly', 20],
      ['inside', 0],
    ]);
    expect(past[2]!.summary).toBe(
      'Search tools failed for agents from all 3 regions, 02:10–02:40 UTC (30 min). It was inside a maintenance window, so it does not count against uptime.',
    );
    expect(past[1]!.summary).toMatch(/ Part of it was inside a maintenance window: 20 min of it counts against uptime\.$/);
    expect(past[0]!.summary).not.toMatch(/maintenance/);
  });

  it('says it of an open one too', () => {
    // Prepare: a window 14:30–15:30 now, an outage open since 14:40.
    const now = { ...payload, maintenance: [{ schedule: 'at(2026-12-01T14:30)', duration: '1 hour', targets: ['Search tools'] }] };
    const open = { ...history, incidents: [{ ...outage(at(14, 40), NOW), end: null }] };
    // Act
    const s = buildSnapshot(now, [open], { now: NOW, upcomingDays: 14 });
    // Assess
    expect(s.incidents.open[0]).toMatchObject({ maintenance: 'inside', countedMinutes: 0 });
    expect(s.incidents.open[0]!.summary).toMatch(/ It is inside a maintenance window, so it does not count against uptime\.$/);
  });
});

describe('the payload from a fleet', () => {
  it('carries display names, counts and maintenance of shown targets only', () => {
    const p = payloadOf(
      {
        statusPage: { public: false },
        namespace: 'McpCanary',
        failureThreshold: 3,
        maintenance: [
          { schedule: 'cron(0 2 * * SUN)', duration: '1 hour', targets: ['internal-admin'] },
          { schedule: 'at(2026-12-24T22:00)', duration: '2 hours' },
        ],
      },
      'McpCanary',
      [
        {
          name: 'search-prod',
          regions: ['us-east-1', 'eu-west-1'],
          quorum: 2,
          periodSeconds: 60,
          status: { name: 'Search', hidden: false },
        },
        { name: 'internal-admin', regions: ['us-east-1'], quorum: 1, periodSeconds: 60, status: { hidden: true } },
      ],
    );
    expect(p.title).toBe('McpCanary status');
    // The region names go along only to read failure classes from the run logs: the page built from it never has them.
    expect(p.targets).toEqual([
      { metric: 'search-prod', name: 'Search', regions: 2, quorum: 2, periodSeconds: 60, probeRegions: ['us-east-1', 'eu-west-1'] },
    ]);
    expect(p.maintenance).toEqual([{ schedule: 'at(2026-12-24T22:00)', duration: '2 hours', targets: ['Search'] }]);
    expect(JSON.stringify(p)).not.toMatch(/internal-admin/);
    const page = buildSnapshot(p, [{ metric: 'search-prod', segments: [], incidents: [] }], { now: NOW, upcomingDays: 14 });
    expect(JSON.stringify(page)).not.toMatch(/internal-admin|us-east-1|eu-west-1|search-prod/);
  });
});

describe('words', () => {
  it('says durations and spans the way a reader does', () => {
    expect(durationWords(29 * 60_000)).toBe('29 min');
    expect(durationWords(125 * 60_000)).toBe('2 h 5 min');
    expect(durationWords(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
    expect(durationWords(10_000)).toBe('1 min');
    expect(spanWords(at(14, 2), at(14, 31), NOW)).toBe('14:02–14:31 UTC');
    expect(spanWords(at(14, 2, -1), at(14, 31, -1), NOW)).toBe('30 Nov 2026 14:02–14:31 UTC');
  });

  it('leaves regions out for a target probed from one region', () => {
    expect(
      incidentWords(
        { target: 'X', kind: 'outage', start: at(1, 0), end: at(1, 5), failedRegions: 1, unhealthyRegions: 1, regions: 1 },
        NOW,
      ),
    ).toBe('X failed for agents, 01:00–01:05 UTC (5 min).');
  });
});
