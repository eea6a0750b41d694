/**
 * History replays the alarms' own rule: for every period a target of 1 to 10 regions can have (each
 * region failed, inconclusive, degraded, warned, healthy, or not heard from yet), every quorum, and the
 * points the old code wrote, the reader's decoding (`decodeVerdicts`) and the timeline's per-period
 * points (`pagePoint`, `ticketPoint`) say what the synthesized expressions say through the CloudWatch
 * metric-math model: breaching, not breaching, or no value.
 */
import { describe, expect, it } from 'vitest';
import { decodeVerdicts, verdictValue } from '../../../../functions/base/common/run-record.ts';
import type { Outcome } from '../../../../functions/base/common/verdict.ts';
import { pagePoint, ticketPoint, type PeriodSample } from '../../../../functions/io/history/timeline.ts';
import { failingRegions, ticketRegions } from '../../../../infra/constructs/alarm-math.ts';
import { evaluateExpression } from '../../../helpers/infra/cloudwatch-alarm.ts';

const RUNS: ReadonlyArray<{ outcome: Outcome; warned: boolean }> = [
  { outcome: 'failed', warned: false },
  { outcome: 'inconclusive', warned: false },
  { outcome: 'degraded', warned: false },
  { outcome: 'healthy', warned: true },
  { outcome: 'healthy', warned: false },
];

/** Every multiset of up to `regions` runs (the rest not heard from): as counts per kind of run. */
function* periods(regions: number, kind = 0, left = regions, acc: number[] = []): Generator<number[]> {
  if (kind === RUNS.length) {
    yield acc;
    return;
  }
  for (let n = 0; n <= left; n++) yield* periods(regions, kind + 1, left - n, [...acc, n]);
}

function alarmPoint(expression: string, sum: number, reports: number, threshold: number, above: boolean) {
  const v = evaluateExpression(
    expression,
    new Map([
      ['failing', new Map([[0, sum]])],
      ['reports', new Map([[0, reports]])],
    ]),
  ).get(0);
  return v === undefined ? undefined : (above ? v > threshold : v >= threshold) ? 'breach' : 'ok';
}

function sampleOf(sum: number, reports: number): PeriodSample {
  const d = decodeVerdicts(sum, reports);
  return { failing: d.failed, reports, inconclusive: d.inconclusive, ticket: d.ticket };
}

describe('history and the alarms read a period the same way', () => {
  it('for every mix of runs in 1 to 10 regions, at every quorum', () => {
    let checked = 0;
    for (let regions = 1; regions <= 10; regions++) {
      const tickets = ticketRegions(regions);
      for (const counts of periods(regions)) {
        const reports = counts.reduce((a, b) => a + b, 0);
        if (reports === 0) continue; // no point at all: both keep their state
        const sum = counts.reduce(
          (s, n, i) =>
            s + n * verdictValue({ outcome: RUNS[i]!.outcome, warnings: RUNS[i]!.warned ? [{ kind: 'posture', detail: 'x' }] : [] }),
          0,
        );
        const sample = sampleOf(sum, reports);
        expect(ticketPoint(sample, regions)).toBe(alarmPoint(tickets, sum, reports, 0, true));
        for (let quorum = 1; quorum <= regions; quorum++) {
          expect(pagePoint(sample, regions, quorum), `${regions} regions, quorum ${quorum}, runs ${counts.join(',')}`).toBe(
            alarmPoint(failingRegions(regions, quorum), sum, reports, quorum, false),
          );
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('for points the old code wrote (1/64 per ticket run)', () => {
    for (let regions = 1; regions <= 10; regions++) {
      for (let failed = 0; failed <= regions; failed++) {
        for (let ticketRuns = 0; failed + ticketRuns <= regions; ticketRuns++) {
          const sum = failed + ticketRuns / 64;
          for (let quorum = 1; quorum <= regions; quorum++)
            expect(pagePoint(sampleOf(sum, regions), regions, quorum)).toBe(
              alarmPoint(failingRegions(regions, quorum), sum, regions, quorum, false),
            );
        }
      }
    }
  });
});
