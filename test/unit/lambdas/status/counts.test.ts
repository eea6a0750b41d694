/**
 * The page's counts and open stretches, from a tier read of `Verdict` samples (functions/lambdas/status/gather.ts
 * `tierRead`, the pure half of a read) through the snapshot's sentences: every "from K of R regions" counts
 * what its words name, and a stretch still open is not ended by a newest period whose runs have not arrived.
 * The samples are written out by hand, one letter per region that reported.
 */
import { describe, expect, it } from 'vitest';
import { decodeVerdicts, verdictValue } from '../../../../functions/base/common/run-record.ts';
import type { StatusPayload } from '../../../../functions/base/config/schema/status-page.ts';
import type { PeriodSample } from '../../../../functions/io/history/timeline.ts';
import { resolutionFor } from '../../../../functions/io/history/resolution.ts';
import { joined, tierRead } from '../../../../functions/lambdas/status/gather.ts';
import { buildSnapshot } from '../../../../functions/lambdas/status/snapshot.ts';

const MIN = 60_000;
const NOW = Date.UTC(2026, 11, 1, 15, 0);
const START = NOW - 60 * MIN;
const target = { metric: 'docs-prod', name: 'Docs search', regions: 3, quorum: 2, periodSeconds: 60 };
const payload: StatusPayload = {
  title: 'Status',
  fleet: 'AccFleet',
  namespace: 'AccFleet',
  failureThreshold: 3,
  days: 1,
  targets: [target],
  maintenance: [],
};

/**
 * One minute as the runs publish it (F failed, D degraded, I inconclusive, H healthy) and the reader decodes
 * it: the Verdict metric's Sum and SampleCount through decodeVerdicts.
 */
function minute(word: string): PeriodSample | undefined {
  if (word === '-') return undefined;
  const outcome = { F: 'failed', D: 'degraded', I: 'inconclusive', H: 'healthy' } as const;
  const sum = [...word].reduce((s, c) => s + verdictValue({ outcome: outcome[c as keyof typeof outcome], warnings: [] }), 0);
  const d = decodeVerdicts(sum, word.length);
  return { failing: d.failed, reports: d.reports, inconclusive: d.inconclusive, ticket: d.ticket, ticketed: d.ticketed };
}

/** 60 minutes from START: healthy, then `word` from 14:40, and the newest minute (14:59) not arrived yet. */
function page(word: string, newest = '-') {
  const samples = Array.from({ length: 60 }, (_, i) => minute(i === 59 ? newest : i >= 40 ? word : 'HHH'));
  const read = tierRead(target, 3, resolutionFor(2, 60), START, samples, true);
  return buildSnapshot(payload, [joined(target.metric, [read])], { now: NOW, upcomingDays: 14 });
}

describe('the page counts regions by what its words name', () => {
  it('says a target degraded in every region is degraded from all of them', () => {
    const s = page('DDD', 'DDD');
    expect(s.incidents.open.map((i) => i.summary)).toEqual([
      'Docs search is degraded for agents from all 3 regions since 14:40 UTC (20 min so far).',
    ]);
  });

  it('counts degraded regions, and a region failing below the quorum, as degraded for agents', () => {
    expect(page('DDH', 'DDH').incidents.open[0]!.summary).toMatch(
      /^Docs search is degraded for agents from 2 of 3 regions since 14:40 UTC/,
    );
    expect(page('FDD', 'FDD').incidents.open[0]!.summary).toMatch(/^Docs search is degraded for agents from all 3 regions since 14:40 UTC/);
    expect(page('FHH', 'FHH').incidents.open[0]!.summary).toMatch(
      /^Docs search is degraded for agents from 1 of 3 regions since 14:40 UTC/,
    );
  });

  it('counts only failed regions in an outage: ticket weights never round a region up', () => {
    const s = page('FFD', 'FFD');
    expect(s.incidents.open.map((i) => [i.kind, i.failedRegions])).toEqual([['outage', 2]]);
    expect(s.incidents.open[0]!.summary).toMatch(/^Docs search is failing for agents from 2 of 3 regions since 14:40 UTC/);
  });

  it('names no count it cannot know: a point averaging five runs does not say how many regions failed at once', () => {
    // 5-minute points (runs averaged): all three regions failed in 4 of each point's 5 minutes, so the average is
    // 2.4 failing regions a run, while 3 failed at once. The page says no number rather than a wrong one.
    const coarse = resolutionFor(63, 60);
    const samples = Array.from({ length: 12 }, (_, i) => (i >= 6 ? { failing: 12, reports: 15 } : { failing: 0, reports: 15 }));
    const read = tierRead(target, 3, coarse, START, samples, true);
    const s = buildSnapshot(payload, [joined(target.metric, [read])], { now: NOW, upcomingDays: 14 });
    expect(s.incidents.open.map((i) => i.summary)).toEqual(['Docs search is failing for agents since 14:30 UTC (30 min so far).']);
    expect(s.incidents.open[0]!.failedRegions).toBeNull();
  });
});

describe('an open stretch on the page', () => {
  it('stays open while the newest minute has not arrived: listed as open, and the state says degraded', () => {
    // Prepare: every region degraded from 14:40; the writer runs at 15:00, before 14:59's runs are in.
    // Act
    const s = page('DDD');
    // Assess
    expect(s.targets[0]!.state).toBe('degraded');
    expect(s.incidents.past).toEqual([]);
    expect(s.incidents.open.map((i) => [i.kind, i.startedAt, i.endedAt])).toEqual([['degraded', '2026-12-01T14:40:00.000Z', null]]);
  });

  it('stays open through a newest minute only some regions have reported, none of them proving it over', () => {
    const s = page('DDD', 'H');
    expect(s.incidents.open.map((i) => i.kind)).toEqual(['degraded']);
    expect(s.incidents.past).toEqual([]);
  });

  it('ends when a later minute proves it over: every region healthy', () => {
    const s = page('DDD', 'HHH');
    expect(s.incidents.open).toEqual([]);
    expect(s.incidents.past.map((i) => [i.kind, i.startedAt, i.endedAt])).toEqual([
      ['degraded', '2026-12-01T14:40:00.000Z', '2026-12-01T14:59:00.000Z'],
    ]);
    expect(s.targets[0]!.state).toBe('up');
  });
});
