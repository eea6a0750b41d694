/**
 * The timeline against windows computed by hand (the expected intervals are written out, not derived):
 * the page rule's N in a row and quorum, undetermined periods, a silent canary during a page, regions
 * that cannot judge (inconclusive), the ticket rule as degraded, maintenance shown and left out.
 */
import { describe, expect, it } from 'vitest';
import { availabilityOf, errorBudget, perDay, timeToResolve } from '../../../../functions/io/history/budget.ts';
import { buildTimeline, episodes, type PeriodSample } from '../../../../functions/io/history/timeline.ts';
import { decodeVerdicts, verdictValue } from '../../../../functions/base/common/run-record.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 1);

const OUTCOME = { F: 'failed', D: 'degraded', I: 'inconclusive', H: 'healthy' } as const;

/**
 * One period per word, one letter per region that reported: F failed, D degraded, I inconclusive, H
 * healthy; '-' no region. Written as the runs write it and decoded as the reader decodes it.
 */
function periods(words: string): Array<PeriodSample | undefined> {
  return words.split(' ').map((w) => {
    if (w === '-') return undefined;
    const sum = [...w].reduce((s, c) => s + verdictValue({ outcome: OUTCOME[c as keyof typeof OUTCOME], warnings: [] }), 0);
    const d = decodeVerdicts(sum, w.length);
    return { failing: d.failed, reports: w.length, inconclusive: d.inconclusive, ticket: d.ticket };
  });
}

const rule = { regions: 3, quorum: 2, runsInARow: 3, periodSeconds: 60 };

describe('buildTimeline', () => {
  it('pages after N quorum failures in a row, from the first of them, until a period that can no longer reach the quorum', () => {
    // Prepare: periods 0-1 up; 2-6 two regions fail; 7 one fails (resolves); 8-9 up.
    const samples = periods('HHH HHH FFH FFH FFH FFH FFH FHH HHH HHH');
    // Act
    const t = buildTimeline({ rule, startMs: T0, samples });
    // Assess
    expect(t.intervals).toEqual([
      { state: 'up', startMs: T0, endMs: T0 + 2 * MIN },
      { state: 'down', startMs: T0 + 2 * MIN, endMs: T0 + 7 * MIN },
      { state: 'degraded', startMs: T0 + 7 * MIN, endMs: T0 + 8 * MIN },
      { state: 'up', startMs: T0 + 8 * MIN, endMs: T0 + 10 * MIN },
    ]);
    expect(t.incidents).toEqual([
      {
        startMs: T0 + 2 * MIN,
        endMs: T0 + 7 * MIN,
        pagedAtMs: T0 + 5 * MIN,
        durationMs: 5 * MIN,
        countedMs: 5 * MIN,
        maintenance: 'none',
        failureClass: null,
        startedBeforeWindow: false,
      },
    ]);
  });

  it('does not page a blip shorter than N, and counts it as up (the ticket rule too needs N)', () => {
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH FFF FFF HHH HHH') });
    expect(t.incidents).toEqual([]);
    expect(t.intervals).toEqual([{ state: 'up', startMs: T0, endMs: T0 + 5 * MIN }]);
  });

  it('skips undetermined periods (one failed, one healthy, one silent) and keeps an open page open while the canary is silent', () => {
    // Period 3 "FH" is undetermined for k=2 of 3: neither breaches nor resolves. Periods 5-6 silent.
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH FFH FFH FH FFH - - HHH HHH') });
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['up', 0, 1],
      ['down', 1, 7],
      ['up', 7, 9],
    ]);
    expect(t.incidents[0]!.pagedAtMs).toBe(T0 + 5 * MIN);
  });

  it('shows degraded when one region is not healthy N in a row, and no-data where nobody reported', () => {
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH DHH DHH FHH HHH - - HHH') });
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['up', 0, 1],
      ['degraded', 1, 4],
      ['up', 4, 5],
      ['no-data', 5, 7],
      ['up', 7, 8],
    ]);
  });

  it('keeps an open page open while every region, or all but the failing one, cannot judge; resolves only on judged regions', () => {
    // Down from period 1; 4-6 nobody judges; 7-8 one region fails, the others cannot judge; 9 two judged healthy.
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH FFF FFF FFF III III III FII FII HHI HHH') });
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['up', 0, 1],
      ['down', 1, 9],
      ['degraded', 9, 10],
      ['up', 10, 11],
    ]);
    expect(t.incidents.map((i) => [(i.startMs - T0) / MIN, (i.endMs! - T0) / MIN])).toEqual([[1, 9]]);
  });

  it('pages from the regions that judge: one failing, the others unable to judge, N in a row', () => {
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH FII FII FII HHH HHH') });
    expect(t.incidents.map((i) => [(i.startMs - T0) / MIN, (i.pagedAtMs - T0) / MIN, (i.endMs! - T0) / MIN])).toEqual([[1, 4, 4]]);
    // One failing and one healthy judge it: below the quorum's share, no page.
    expect(buildTimeline({ rule, startMs: T0, samples: periods('HHH FHI FHI FHI HHH') }).incidents).toEqual([]);
  });

  it('leaves a period nobody could judge out of availability (no-data), neither up nor down', () => {
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH III III HHH') });
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['up', 0, 1],
      ['no-data', 1, 3],
      ['up', 3, 4],
    ]);
    expect(availabilityOf(t)).toMatchObject({ upMs: 2 * MIN, noDataMs: 2 * MIN, judgedMs: 2 * MIN, availability: 1 });
  });

  it('says no-data, not degraded, while every region that reports cannot judge, though the ticket rule opens on it', () => {
    // Four periods all inconclusive: the ticket alarm opens (inconclusive is worth a ticket), the endpoint was
    // degraded for no agent. A degraded stretch that meets such a period splits around it.
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH III III III III HHH') });
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['up', 0, 1],
      ['no-data', 1, 5],
      ['up', 5, 6],
    ]);
    const split = buildTimeline({ rule, startMs: T0, samples: periods('DDD DDD DDD III DDD') });
    expect(split.intervals.map((i) => i.state)).toEqual(['degraded', 'no-data', 'degraded']);
  });

  it('marks maintenance over everything else and leaves it out of availability and the incident count', () => {
    // Down 2..8 (6 min); maintenance 4..10 covers 4 of its minutes and 2 up minutes.
    const samples = periods('HHH HHH FFF FFF FFF FFF FFF FFF HHH HHH HHH HHH');
    const t = buildTimeline({ rule, startMs: T0, samples, maintenance: [{ startMs: T0 + 4 * MIN, endMs: T0 + 10 * MIN }] });
    const a = availabilityOf(t);
    expect(t.incidents[0]).toMatchObject({ durationMs: 6 * MIN, countedMs: 2 * MIN, maintenance: 'partly' });
    expect(a).toEqual({
      upMs: 4 * MIN,
      degradedMs: 0,
      downMs: 2 * MIN,
      maintenanceMs: 6 * MIN,
      noDataMs: 0,
      judgedMs: 6 * MIN,
      availability: 4 / 6,
    });
    const inside = buildTimeline({ rule, startMs: T0, samples, maintenance: [{ startMs: T0, endMs: T0 + 12 * MIN }] });
    expect(inside.incidents[0]!.maintenance).toBe('inside');
    expect(timeToResolve(inside.incidents)).toEqual({ incidents: 0, open: 0, meanMs: null, maxMs: null });
  });
});

describe('an open stretch ends only at a later determined period', () => {
  it('keeps the ticket rule open through a silent or incomplete newest period: degraded to the end, not no-data', () => {
    // Prepare: every region degraded from period 1; period 5 has one healthy report of 3 (the others not yet
    // arrived: no region proven healthy-enough), period 6 has none yet.
    const samples = periods('HHH DDD DDD DDD DDD H -');
    // Act
    const t = buildTimeline({ rule, startMs: T0, samples });
    // Assess
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['up', 0, 1],
      ['degraded', 1, 7],
    ]);
  });

  it('ends a degraded stretch at the first period every region reported healthy, not at the silence before it', () => {
    const t = buildTimeline({ rule, startMs: T0, samples: periods('DDD DDD DDD - - HHH HHH') });
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['degraded', 0, 5],
      ['up', 5, 7],
    ]);
  });

  it('says no-data for silence with no rule open', () => {
    const t = buildTimeline({ rule, startMs: T0, samples: periods('HHH HHH - -') });
    expect(t.intervals.map((i) => i.state)).toEqual(['up', 'no-data']);
  });
});

describe('an outage already open when the window begins', () => {
  const one = { regions: 1, quorum: 1, runsInARow: 3, periodSeconds: 60 };
  const window = T0 + 5 * MIN;

  it("is down from the window's first minute, even with fewer than N failures left in it, and marked as begun before", () => {
    // Prepare: five periods before the window, all failing (the alarm paged there); one more failing in it, then healthy.
    const samples = periods('F F F F F F H H H H');
    // Act
    const t = buildTimeline({ rule: one, startMs: T0, windowStartMs: window, samples });
    // Assess
    expect(t.startMs).toBe(window);
    expect(t.intervals.map((i) => [i.state, (i.startMs - T0) / MIN, (i.endMs - T0) / MIN])).toEqual([
      ['down', 5, 6],
      ['up', 6, 10],
    ]);
    expect(t.incidents).toEqual([
      {
        startMs: window,
        endMs: T0 + 6 * MIN,
        pagedAtMs: T0 + 3 * MIN,
        durationMs: MIN,
        countedMs: MIN,
        maintenance: 'none',
        failureClass: null,
        startedBeforeWindow: true,
      },
    ]);
    // Its length inside the window is not a time to resolve.
    expect(timeToResolve(t.incidents)).toEqual({ incidents: 1, open: 0, meanMs: null, maxMs: null });
  });

  it('leaves out an outage that ended before the window, and starts one that begins at its first minute as its own', () => {
    const t = buildTimeline({ rule: one, startMs: T0, windowStartMs: window, samples: periods('F F F H H F F F H H') });
    expect(t.incidents.map((i) => [(i.startMs - T0) / MIN, i.startedBeforeWindow])).toEqual([[5, false]]);
    expect(availabilityOf(t)).toMatchObject({ downMs: 3 * MIN, upMs: 2 * MIN, judgedMs: 5 * MIN });
  });
});

describe('episodes (the ignore rules)', () => {
  it('needs N existing points inside the N+2 range: breaches spread by long gaps never page', () => {
    const b = 'breach' as const;
    expect(episodes([b, undefined, undefined, undefined, b, undefined, undefined, undefined, b], 3)).toEqual([]);
    expect(episodes([b, undefined, b, undefined, b], 3)).toEqual([{ first: 0, alarmAt: 4, end: null }]);
  });
});

describe('errorBudget', () => {
  it('gives 43.2 minutes for 99.9 % of 30 days, and what is left after 10 minutes down', () => {
    const judged = 30 * 1440 * MIN;
    const b = errorBudget({ downMs: 10 * MIN, judgedMs: judged }, 99.9);
    expect(b.allowedDownMs).toBeCloseTo(43.2 * MIN, 3);
    expect(b.leftMs).toBeCloseTo(33.2 * MIN, 3);
    expect(b.leftFraction).toBeCloseTo(33.2 / 43.2, 9);
    expect(b.burnRate).toBeCloseTo(10 / 43.2, 9);
  });
});

describe('perDay', () => {
  it('splits a timeline into UTC days, cutting an interval that spans midnight', () => {
    const day = 86_400_000;
    const t = {
      startMs: T0,
      endMs: T0 + 2 * day,
      intervals: [
        { state: 'up' as const, startMs: T0, endMs: T0 + day - 30 * MIN },
        { state: 'down' as const, startMs: T0 + day - 30 * MIN, endMs: T0 + day + 30 * MIN },
        { state: 'up' as const, startMs: T0 + day + 30 * MIN, endMs: T0 + 2 * day },
      ],
    };
    const days = perDay(t);
    expect(days.map((d) => [d.dayMs - T0, d.downMs / MIN, d.upMs / MIN])).toEqual([
      [0, 30, 1410],
      [day, 30, 1410],
    ]);
  });
});
