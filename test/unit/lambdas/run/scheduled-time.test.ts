/**
 * A run's datapoint names the period it was scheduled for, not the second it ran: Scheduler starts a
 * run anywhere in its minute and a run may take its whole budget, so the wall clock at publish time can
 * name the next period (a region counted twice there, and not at all in its own).
 */
import { describe, expect, it } from 'vitest';
import { scheduledPeriodStart } from '../../../../functions/lambdas/run/event.ts';
import { SCHEDULED_TIME_PLACEHOLDER, planFleet } from '../../../../infra/plan/plan.ts';

const at = (iso: string) => Date.parse(iso);

describe('the scheduled period', () => {
  it("is Scheduler's scheduled time floored to the period, however late the run starts", () => {
    const event = { targets: [], scheduledTime: '2026-11-30T21:07:00Z', periodSeconds: 60 };
    expect(scheduledPeriodStart(event, at('2026-11-30T21:07:59.900Z')).toISOString()).toBe('2026-11-30T21:07:00.000Z');
    expect(scheduledPeriodStart(event, at('2026-11-30T21:08:41Z')).toISOString()).toBe('2026-11-30T21:07:00.000Z');
  });

  it('floors to a longer period on its own boundaries', () => {
    const event = { targets: [], scheduledTime: '2026-11-30T21:08:00Z', periodSeconds: 300 };
    expect(scheduledPeriodStart(event, at('2026-11-30T21:09:30Z')).toISOString()).toBe('2026-11-30T21:05:00.000Z');
  });

  it('falls back to the run start for a manual invoke (no scheduled time, or the placeholder unreplaced)', () => {
    expect(scheduledPeriodStart({ targets: [] }, at('2026-11-30T21:07:42Z')).toISOString()).toBe('2026-11-30T21:07:00.000Z');
    expect(scheduledPeriodStart({ targets: [], scheduledTime: SCHEDULED_TIME_PLACEHOLDER }, at('2026-11-30T21:07:42Z')).toISOString()).toBe(
      '2026-11-30T21:07:00.000Z',
    );
  });

  it('is what every schedule asks Scheduler to fill in, with the rate as the period', () => {
    const plan = planFleet({
      homeRegion: 'eu-west-1',
      targets: [
        { name: 'a', url: 'https://a.example.com/mcp' },
        { name: 'b', url: 'https://b.example.com/mcp', schedule: 'rate(5 minutes)' },
      ],
    });
    const inputs = plan.regions[0]!.rates.flatMap((r) => r.schedules).map(
      (s) => JSON.parse(s.input) as { scheduledTime: string; periodSeconds: number },
    );
    expect(inputs.map((i) => [i.scheduledTime, i.periodSeconds])).toEqual([
      [SCHEDULED_TIME_PLACEHOLDER, 60],
      [SCHEDULED_TIME_PLACEHOLDER, 300],
    ]);
  });
});
