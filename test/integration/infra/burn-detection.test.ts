/**
 * What each burn rate is detected in, through the CloudWatch timing model (helpers/infra/timing.ts) and
 * the burn alarms as synthesized (helpers/infra/burn.ts), at 99.9 % and 99 % over 30 days: a steady burn
 * is a bad minute every 1 / (rate × error budget) minutes in every region, from run 1 on. The SRE
 * workbook's detection time for a tier is its long window × its rate / the burn rate; a burn is held to
 * the fastest tier of each severity whose rate it reaches, except a tier whose long window takes the
 * N-in-a-row floor (infra/plan/burn.ts: the window cannot tell its rate from a blip), whose rate it no
 * longer detects. Below the lowest rate of a severity, a burn never tells that severity at all.
 * The table is docs/alarms.md's (MCP_CANARY_CAPTURE_DIR writes it). Slow by design: day-long windows
 * replayed over days of minutes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BURN_TIERS, burnRate, planBurn, type BurnSeverity } from '../../../infra/plan/burn.ts';
import { alarmsBy, burnAlarmsOf, type BurnAlarms } from '../../helpers/infra/burn.ts';
import { smallFleet } from '../../helpers/infra/synth.ts';
import { randomTiming, replayTimed, seeded, type Timing, type TimedScenario } from '../../helpers/infra/timing.ts';

const OBJECTIVES = [99.9, 99] as const;
/** The brief's rates, and one below the lowest of each severity (5× under 6×, 0.5× under 1×). */
const RATES = [100, 50, 14.4, 10, 6, 5, 3, 1, 0.5] as const;
const N = 3;

const alarmsAt = new Map<number, BurnAlarms>(
  OBJECTIVES.map((o) => [o, burnAlarmsOf(smallFleet({ slo: { objective: o, burnAlarms: true } }), 'rates-prod')]),
);

/** A steady burn: the runs of one region, a bad minute every 1 / (rate × budget) minutes from run 1. */
function steady(rate: number, objective: number, runs: number): string {
  const share = rate * (1 - objective / 100);
  const bad = new Set<number>();
  for (let k = 0; Math.floor(k / share) < runs; k++) bad.add(Math.floor(k / share));
  return Array.from({ length: runs }, (_, i) => (bad.has(i) ? 'F' : 'H')).join('');
}

/** The workbook's detection time (minutes) of the fastest tier of a severity the rate reaches; null: none. */
function workbookMinutes(severity: BurnSeverity, rate: number, objective: number): number | null {
  const plan = planBurn({ fleet: 'McpCanary' } as never, { name: 'rates-prod', periodSeconds: 60 }, { objective, windowDays: 30 }, N);
  const times = plan.tiers
    .filter((t) => t.tier.severity === severity && !t.long.floored && rate >= t.rate - 1e-9)
    .map((t) => ((t.tier.longSeconds / 60) * t.rate) / rate);
  return times.length === 0 ? null : Math.min(...times);
}

/** Minutes (runs) after the burn began when the severity was told; null: not within the runs replayed. */
function detected(burn: BurnAlarms, severity: BurnSeverity, runs: string, timing?: Timing): number | null {
  const s: TimedScenario = { runs: { 'us-east-1': runs, 'eu-west-1': runs, 'ap-southeast-2': runs }, ...(timing ? { timing } : {}) };
  const windows = burn.windows.filter((w) => BURN_TIERS.some((t) => t.severity === severity && w.AlarmName.includes(`-${t.id}-`)));
  const told = alarmsBy(burn.replay(s, 'OK', windows), severity === 'page' ? '/slo-burn-page' : '/slo-burn-ticket')
    .filter((c) => !c.suppressed)
    .map((c) => c.afterRun);
  // A burn that is a hard outage pages by the paging alarm (N in a row), which suppresses the burn page.
  const critical =
    severity === 'page'
      ? replayTimed(burn.critical, s)
          .filter((n) => n.state === 'ALARM')
          .map((n) => n.afterRun)
      : [];
  const all = [...told, ...critical];
  return all.length === 0 ? null : Math.min(...all);
}

/** How many runs to replay: past the workbook's time, or (never told) past the longest window and two bad minutes. */
function runsFor(severity: BurnSeverity, rate: number, objective: number): number {
  const bound = workbookMinutes(severity, rate, objective);
  if (bound !== null) return Math.ceil(bound) + 5;
  return Math.ceil((severity === 'page' ? 360 : 1440) + 2 / (rate * (1 - objective / 100)));
}

interface Row {
  readonly rate: number;
  readonly objective: number;
  readonly severity: BurnSeverity;
  readonly workbook: number | null;
  readonly measured: number | null;
}

const rows: Row[] = OBJECTIVES.flatMap((objective) =>
  RATES.flatMap((rate) =>
    (['page', 'ticket'] as const).map((severity): Row => {
      const runs = steady(rate, objective, runsFor(severity, rate, objective));
      return {
        rate,
        objective,
        severity,
        workbook: workbookMinutes(severity, rate, objective),
        measured: detected(alarmsAt.get(objective)!, severity, runs),
      };
    }),
  ),
);

describe('SLO burn detection per burn rate, through the timing model', () => {
  it.each(rows.filter((r) => r.workbook !== null))(
    '$objective %: a steady $rate× burn tells its $severity within the workbook’s time',
    ({ workbook, measured }) => {
      // The bad minute that completes the count is seen when its minute closes: one run after the workbook's time at most.
      expect(measured).not.toBeNull();
      expect(measured!).toBeLessThanOrEqual(Math.ceil(workbook!) + 1);
    },
  );

  it.each(rows.filter((r) => r.workbook === null))('$objective %: a steady $rate× burn never tells its $severity', ({ measured }) => {
    expect(measured).toBeNull();
  });

  it.each(rows.map((r, i) => ({ ...r, seed: i + 1 })))(
    '$objective %: a steady $rate× burn holds to it under random timings too (seed $seed: runs anywhere in their minute, up to 30 s long)',
    (r) => {
      const runs = steady(r.rate, r.objective, runsFor(r.severity, r.rate, r.objective));
      const measured = detected(alarmsAt.get(r.objective)!, r.severity, runs, randomTiming(seeded(r.seed), 30, true));
      if (r.workbook === null) expect(measured).toBeNull();
      else expect(measured ?? Infinity).toBeLessThanOrEqual(Math.ceil(r.workbook) + 1);
    },
  );

  it('pages at every rate the page tiers name and tickets at every rate the ticket tiers name', () => {
    const rates = (severity: BurnSeverity) => BURN_TIERS.filter((t) => t.severity === severity).map((t) => burnRate(t, 30));
    for (const o of OBJECTIVES) {
      for (const r of rates('page'))
        expect(rows.find((x) => x.objective === o && x.rate === r && x.severity === 'page')?.measured).not.toBeNull();
      for (const r of rates('ticket'))
        expect(rows.find((x) => x.objective === o && x.rate === r && x.severity === 'ticket')?.measured).not.toBeNull();
    }
  });

  it('is the table in docs/alarms.md', () => {
    const dir = process.env.MCP_CANARY_CAPTURE_DIR;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'burn-detection.md'), `${detectionTable()}\n`);
    }
    const doc = readFileSync(new URL('../../../docs/alarms.md', import.meta.url), 'utf8');
    const section = /<!-- burn-detection:start -->\n([\s\S]*?)\n<!-- burn-detection:end -->/.exec(doc)?.[1];
    expect(section, 'docs/alarms.md has no burn-detection markers').toBeDefined();
    expect(section!.trim()).toBe(detectionTable().trim());
  });
});

/** The markdown table: per rate, the workbook's time and what the alarms did, at each objective. */
function detectionTable(): string {
  const time = (m: number | null) => {
    if (m === null) return 'never';
    const r = Math.round(m);
    return r < 120
      ? `${r} min`
      : r < 2880
        ? `${Math.floor(r / 60)} h ${String(r % 60).padStart(2, '0')} min`
        : `${(r / 1440).toFixed(1)} days`;
  };
  const cell = (o: number, rate: number, severity: BurnSeverity) => {
    const r = rows.find((x) => x.objective === o && x.rate === rate && x.severity === severity)!;
    return `${time(r.measured)} (${time(r.workbook)})`;
  };
  const gone = (rate: number) => time((30 * 1440) / rate);
  const lines = RATES.map(
    (rate) => `| ${rate}× | ${gone(rate)} | ${OBJECTIVES.flatMap((o) => [cell(o, rate, 'page'), cell(o, rate, 'ticket')]).join(' | ')} |`,
  );
  return [
    '| Burn | Budget gone in | 99.9 %: page | 99.9 %: ticket | 99 %: page | 99 %: ticket |',
    '| --- | --- | --- | --- | --- | --- |',
    ...lines,
  ].join('\n');
}
