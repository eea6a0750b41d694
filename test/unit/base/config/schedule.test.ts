/**
 * Schedule expressions as EventBridge Scheduler reads them (its User Guide, "Schedule types"), and which
 * of the valid ones the canary can run: only a rate, since its alarms count runs in a row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canaryScheduleProblem, rateFor, rateSeconds, schedulerProblem } from '../../../../functions/base/config/aws/schedule.ts';
import { rateSlug } from '../../../../infra/plan/rates.ts';
import { planFleet } from '../../../../infra/plan/plan.ts';

describe("EventBridge Scheduler's rules", () => {
  it.each(['rate(1 minute)', 'rate(5 minutes)', 'rate(1 hour)', 'rate(12 hours)', 'rate(1 day)', 'rate(2 days)'])('accepts %s', (s) => {
    expect(schedulerProblem(s)).toBeNull();
    expect(canaryScheduleProblem(s)).toBeNull();
  });

  it.each([
    ['rate(1 minutes)', 'wants "minute" for 1. Write rate(1 minute)'],
    ['rate(1 hours)', 'wants "hour" for 1. Write rate(1 hour)'],
    ['rate(5 minute)', 'wants "minutes" for more than 1. Write rate(5 minutes)'],
    ['rate(2 day)', 'wants "days" for more than 1. Write rate(2 days)'],
    ['rate(0 minutes)', 'has value "0"; a rate\'s value is a whole number of 1 or more'],
    ['rate(1.5 hours)', 'has value "1.5"'],
    ['rate(5 mins)', 'has unit "mins"; EventBridge Scheduler\'s units are minute(s), hour(s) and day(s)'],
    ['rate(30 seconds)', 'has unit "seconds"'],
    ['rate(5minutes)', 'wants exactly one space, between the value and the unit, and no other. Write rate(5 minutes)'],
    ['rate()', 'is not a rate: write rate(value unit)'],
    [
      'rate( 5 minutes)',
      '"rate( 5 minutes)" is not valid: EventBridge Scheduler wants exactly one space, between the value and the unit, and no other. Write rate(5 minutes)',
    ],
    ['rate(5  minutes)', 'and no other. Write rate(5 minutes)'],
    ['rate(5 minutes )', 'and no other. Write rate(5 minutes)'],
    ['rate (5 minutes)', 'and no other. Write rate(5 minutes)'],
    [' rate(1 hour)', 'and no other. Write rate(1 hour)'],
    ['rate(5 Minutes)', 'wants lower case. Write rate(5 minutes)'],
    ['RATE(1 day)', 'wants lower case. Write rate(1 day)'],
    [
      'rate( 1 Minutes )',
      'wants exactly one space, between the value and the unit, and no other; lower case; "minute" for 1. Write rate(1 minute)',
    ],
    ['every 5 minutes', 'is not an EventBridge Scheduler expression'],
    ['cron(0 8 * * *)', 'has 5 field(s); an EventBridge Scheduler cron has 6'],
    ['cron(0 8 * * * *)', 'needs "?" in exactly one of day-of-month and day-of-week'],
    ['cron(0 8 ? * ? *)', 'needs "?" in exactly one of day-of-month and day-of-week'],
    ['cron(61 8 * * ? *)', 'minutes "61" is not 0–59'],
    ['cron(0 8 ? * 0 *)', 'day-of-week "0" is not 1–7'],
    ['cron(0 8 ? * 3#2,5#1 *)', 'lists more than one "#" day'],
    ['cron(0 8 * * ? 1969)', 'year "1969" is not 1970–2199'],
    ['at(2027-02-30T08:00:00)', 'is not at(yyyy-mm-ddThh:mm:ss) with a real date and time'],
    ['at(2027-02-03T08:00)', 'is not at(yyyy-mm-ddThh:mm:ss)'],
  ])('refuses %s: %s', (s, why) => {
    expect(schedulerProblem(s)).toContain(why);
  });

  it.each([
    ['targets[0] ("a").schedule', { targets: [{ name: 'a', url: 'https://a.example.com/mcp', schedule: 'rate( 5 minutes)' }] }],
    ['fleet config: schedule', { schedule: 'rate( 5 minutes)', targets: [{ name: 'a', url: 'https://a.example.com/mcp' }] }],
  ])('names the field (%s) and the exact fix for an oddly spaced rate, never "a valid cron"', (field, fleet) => {
    expect(() => planFleet({ homeRegion: 'us-east-1', ...fleet })).toThrow(
      `${field} "rate( 5 minutes)" is not valid: EventBridge Scheduler wants exactly one space, between the value and the unit, and no other. Write rate(5 minutes)`,
    );
  });

  it('reads every spelling of a rate with one grammar: either it is exact, or the message ends with the exact rate to write', () => {
    const space = fc.constantFrom('', ' ', '  ', '\t');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.constantFrom('minute', 'hour', 'day'),
        fc.boolean(),
        fc.boolean(),
        fc.tuple(space, space, fc.constantFrom(' ', '  ', ''), space, space),
        (n, unit, plural, upper, [a, b, c, d, e]) => {
          const written = `${a}rate${b}(${n}${c}${upper ? unit.toUpperCase() : unit}${plural ? 's' : ''}${d})${e}`;
          const exact = `rate(${n} ${unit}${n === 1 ? '' : 's'})`;
          const problem = schedulerProblem(written);
          if (written === exact) expect(problem).toBeNull();
          else
            expect(problem).toMatch(new RegExp(`is not valid: EventBridge Scheduler wants .+\\. Write ${exact.replace(/[()]/g, '\\$&')}$`));
        },
      ),
    );
  });

  it.each([
    'cron(0/5 * * * ? *)',
    'cron(0 8 ? * MON-FRI *)',
    'cron(0 10 L * ? *)',
    'cron(0 10 15W * ? *)',
    'cron(0 10 ? * 6L *)',
    'cron(0 10 ? * 3#2 *)',
    'at(2027-03-31T08:00:00)',
  ])('accepts the Scheduler form %s, which the canary then refuses with the reason', (s) => {
    expect(schedulerProblem(s)).toBeNull();
    expect(canaryScheduleProblem(s)).toMatch(/the canary's alarms count failed runs in a row, one run per period, so it runs on a rate/);
  });

  it.each([
    ['cron(0/5 * * * ? *)', 'rate(5 minutes)'],
    ['cron(*/15 * * * ? *)', 'rate(15 minutes)'],
    ['cron(* * * * ? *)', 'rate(1 minute)'],
    ['cron(0 * * * ? *)', 'rate(1 hour)'],
    ['cron(30 */6 * * ? *)', 'rate(6 hours)'],
    ['cron(0 8 * * ? *)', 'rate(1 day)'],
  ])('names the rate a fixed-interval cron equals: %s → %s', (cron, rate) => {
    expect(canaryScheduleProblem(cron)).toContain(`Write ${rate}, the same interval`);
  });

  it('does not call an uneven cron a rate', () => {
    expect(canaryScheduleProblem('cron(0 8,9,17 * * ? *)')).toContain('its runs are not evenly spaced');
    expect(canaryScheduleProblem('cron(0/7 * * * ? *)')).toContain('its runs are not evenly spaced');
  });
});

describe('rates as the stacks read them', () => {
  it('writes each period one way, and reads back what it writes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 * 24 * 30 }), (minutes) => {
        const rate = rateFor(minutes * 60);
        expect(schedulerProblem(rate)).toBeNull();
        expect(rateSeconds(rate)).toBe(minutes * 60);
      }),
    );
    expect([rateFor(60), rateFor(3600), rateFor(5400), rateFor(86_400), rateFor(172_800)]).toEqual([
      'rate(1 minute)',
      'rate(1 hour)',
      'rate(90 minutes)',
      'rate(1 day)',
      'rate(2 days)',
    ]);
    expect([rateSlug(300), rateSlug(3600), rateSlug(86_400)]).toEqual(['5m', '1h', '24h']);
  });

  it('never reads an expression Scheduler would refuse', () => {
    for (const s of ['rate(1 minutes)', 'rate(5 minute)', 'rate(0 minutes)']) expect(rateSeconds(s)).toBeNull();
  });
});
