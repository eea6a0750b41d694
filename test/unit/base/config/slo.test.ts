/** The slo config: a fleet default, per-target overrides field by field, and errors that name the field and the fix. */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { sloOf } from '../../../../functions/base/config/schema/slo.ts';
import { planFleet } from '../../../../infra/plan/plan.ts';

const base = {
  homeRegion: 'us-east-1',
  targets: [
    { name: 'rates', url: 'https://rates.example.com/mcp' },
    { name: 'docs', url: 'https://docs.example.com/mcp', slo: { objective: 99.5, burnAlarms: false } },
  ],
};

function errorOf(raw: unknown): string {
  try {
    parseFleet(raw);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('parsed');
}

describe('slo', () => {
  it('inherits the fleet default field by field; a target without any objective has none', () => {
    const fleet = parseFleet({ ...base, slo: { objective: 99.9, burnAlarms: true } });
    expect(sloOf(fleet, fleet.targets[0]!)).toEqual({ objective: 99.9, windowDays: 30, burnAlarms: true });
    expect(sloOf(fleet, fleet.targets[1]!)).toEqual({ objective: 99.5, windowDays: 30, burnAlarms: false });
    const none = parseFleet({ ...base, targets: [base.targets[0]] });
    expect(sloOf(none, none.targets[0]!)).toBeNull();
  });

  it.each([
    [{ objective: 100 }, 'slo.objective', 'less than 100'],
    [{ objective: 0 }, 'slo.objective', 'more than 0'],
    [{ objective: '99.9' }, 'slo.objective', 'must be a number'],
    [{ objective: 99.9, windowDays: 91 }, 'slo.windowDays', 'at most 90'],
    [{ objective: 99.9, windowDays: 0 }, 'slo.windowDays', 'at least 1'],
    [{ objective: 99.9, windowDays: 7.5 }, 'slo.windowDays', 'whole number'],
    [{ objective: 99.9, burnAlarm: true }, 'slo', 'burnAlarm'],
  ])('refuses fleet slo %j naming %s', (slo, field, words) => {
    const message = errorOf({ ...base, slo });
    expect(message).toContain(field);
    expect(message).toContain(words);
  });

  it('refuses a target override with no objective anywhere, naming where to put one', () => {
    const message = errorOf({ ...base, targets: [{ name: 'a', url: 'https://a.example.com/mcp', slo: { burnAlarms: true } }] });
    expect(message).toContain('targets[0].slo.objective');
    expect(message).toContain('slo: { objective: 99.9 }');
  });

  it('keeps the target slo out of the run payload (the run schema is strict)', () => {
    const plan = planFleet({ ...base, slo: { objective: 99.9 } });
    const payload = JSON.parse(plan.regions[0]!.rates[0]!.schedules[0]!.input) as { targets: Array<Record<string, unknown>> };
    expect(payload.targets.map((t) => Object.keys(t).includes('slo'))).toEqual([false, false]);
  });
});
