/**
 * The `Verdict` metric's place-value code, as the alarms and history decode it: every mix of outcomes a
 * point can hold (up to 10 regions in a run's period, up to 60 runs × 10 regions in the hourly points
 * history reads after 63 days) decodes to its counts exactly, summed in any order; and a point written
 * with the code before inconclusive had a place (1/64 for every ticket run) reads as those alarms read it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PROBE_REGIONS } from '../../../../functions/base/config/schema/fleet.ts';
import { decodeVerdicts, INCONCLUSIVE_WEIGHT, TICKET_WEIGHT, verdictValue } from '../../../../functions/base/common/run-record.ts';
import type { Outcome } from '../../../../functions/base/common/verdict.ts';

const run = (outcome: Outcome, warned = false) => verdictValue({ outcome, warnings: warned ? [{ kind: 'posture', detail: 'x' }] : [] });

describe('the Verdict code', () => {
  it('writes failed 1, inconclusive its own place and a ticket, degraded or warned a ticket, healthy 0', () => {
    expect(run('failed')).toBe(1);
    expect(run('failed', true)).toBe(1);
    expect(run('inconclusive')).toBe(INCONCLUSIVE_WEIGHT + TICKET_WEIGHT);
    expect(run('degraded')).toBe(TICKET_WEIGHT);
    expect(run('healthy', true)).toBe(TICKET_WEIGHT);
    expect(run('healthy')).toBe(0);
  });

  it('decodes any mix of up to 600 runs in a point to its failed, inconclusive and ticketed counts, summed in any order', () => {
    const outcome = fc.record({ outcome: fc.constantFrom<Outcome>('healthy', 'degraded', 'failed', 'inconclusive'), warned: fc.boolean() });
    fc.assert(
      fc.property(fc.array(outcome, { minLength: 1, maxLength: 60 * MAX_PROBE_REGIONS }), (runs) => {
        const sum = runs.reduce((s, r) => s + run(r.outcome, r.warned), 0);
        expect(decodeVerdicts(sum, runs.length)).toEqual({
          reports: runs.length,
          failed: runs.filter((r) => r.outcome === 'failed').length,
          inconclusive: runs.filter((r) => r.outcome === 'inconclusive').length,
          ticket: runs.some((r) => r.outcome !== 'healthy' || r.warned),
          ticketed: runs.filter((r) => r.outcome !== 'failed' && (r.outcome !== 'healthy' || r.warned)).length,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('reads a point of the old code (1/64 a ticket run, inconclusive too) as failed as written and no region unable to judge', () => {
    // 2 failed, 1 degraded: the old alarms saw 2 failing regions and a ticket.
    expect(decodeVerdicts(2 + 1 / 64, 3)).toEqual({ reports: 3, failed: 2, inconclusive: 0, ticket: true, ticketed: 1 });
    // One region on the old code (a ticket run) and one on the new (inconclusive) in the same period, during a rollout.
    expect(decodeVerdicts(1 / 64 + INCONCLUSIVE_WEIGHT + TICKET_WEIGHT, 3)).toMatchObject({ failed: 0, inconclusive: 0, ticket: true });
  });
});
