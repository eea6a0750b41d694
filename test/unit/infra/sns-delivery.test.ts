/**
 * A page and its OK through the pages topic's HTTPS subscription while the pager (PagerDuty, JSM) is
 * down, with SNS's documented retry phases (support/sns-delivery.ts) and the delivery policy the stack
 * synthesizes: a blip delays a page, it never loses the ALARM or the OK; an outage longer than SNS
 * retries lands in the dead-letter queue the canary owner is alarmed on, instead of vanishing.
 */
import { describe, expect, it } from 'vitest';
import { HTTPS_DELIVERY_POLICY } from '../../../infra/constructs/topics.ts';
import { resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { attemptTimes, deliver, SNS_DEFAULT_HTTPS, type RetryPolicy } from '../../helpers/infra/sns-delivery.ts';

const home = synthFleet(smallFleet()).json('McpCanary-home');
const [, https] = resourcesOf(home, 'AWS::SNS::Subscription').find(([, p]) => p.Protocol === 'https')!;
const policy = (https.DeliveryPolicy as { healthyRetryPolicy: RetryPolicy }).healthyRetryPolicy;
const hasDlq = https.RedrivePolicy !== undefined;
const outage = (from: number, minutes: number) => (t: number) => t >= from && t < from + minutes * 60;

describe('pages through an HTTPS pager that is down for a while', () => {
  it('synthesizes the policy under test, with a dead-letter queue', () => {
    expect(policy).toEqual(HTTPS_DELIVERY_POLICY.healthyRetryPolicy);
    expect(hasDlq).toBe(true);
  });

  it.each([1, 5, 10, 30, 45])('delivers both the ALARM and its OK through a %i-minute pager outage', (minutes) => {
    // The page is published as the outage starts; the OK three minutes later.
    const down = outage(0, minutes);
    const alarm = deliver(policy, 0, down, hasDlq);
    const ok = deliver(policy, 180, down, hasDlq);
    expect(alarm.delivered && ok.delivered).toBe(true);
    // Never later than a minute after the pager is back.
    if (alarm.delivered) expect(alarm.at - minutes * 60).toBeLessThanOrEqual(60);
  });

  it("SNS's default policy would have lost the page in a blip of just over a minute", () => {
    expect(deliver(SNS_DEFAULT_HTTPS, 0, outage(0, 1.1), false)).toEqual({ delivered: false, deadLettered: false, tries: 4 });
    expect(deliver(policy, 0, outage(0, 1.1), hasDlq).delivered).toBe(true);
  });

  it('keeps trying for close to the hour SNS allows, then dead-letters instead of dropping', () => {
    const last = attemptTimes(policy).at(-1)!;
    expect(last).toBeGreaterThanOrEqual(45 * 60);
    expect(last).toBeLessThanOrEqual(3600);
    expect(deliver(policy, 0, outage(0, 61), hasDlq)).toMatchObject({ delivered: false, deadLettered: true });
  });

  it('can deliver the OK before its ALARM when both wait out an outage: the brief and the alarm state are the record', () => {
    // Not a guarantee SNS gives (no ordering on standard topics); docs/alarms.md says so.
    const down = outage(0, 20);
    const alarm = deliver(policy, 0, down, hasDlq);
    const ok = deliver(policy, 150, down, hasDlq);
    expect(alarm.delivered && ok.delivered).toBe(true);
    if (alarm.delivered && ok.delivered) expect(Math.abs(ok.at - alarm.at)).toBeLessThanOrEqual(60);
  });
});
