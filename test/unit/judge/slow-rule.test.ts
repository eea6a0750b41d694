/** The slow rule reads the duration the verdict reports, so the two never disagree. */
import { describe, expect, it } from 'vitest';
import { Outcome } from '../../../functions/common/verdict.ts';
import { Target } from '../../../functions/config/target.ts';
import type { Attempt } from '../../../functions/probe/attempt.ts';
import { verdictOf } from '../../../functions/judge/verdict.ts';

const target = Target.parse({ name: 'rates', url: 'https://mcp.example.com/mcp', tool: { name: 'get_rate' }, degradedMs: 6_000 });
/** A healthy attempt that took `ms` against the endpoint. */
const healthy = (ms: number): Attempt => ({
  outcome: Outcome.healthy,
  failure: null,
  detail: 'get_rate answered as expected',
  retryable: false,
  revision: null,
  server: null,
  probes: [],
  durationMs: ms,
  listed: null,
  fault: null,
});
const run = (ms: number) => ({ last: healthy(ms), retries: 0, firstFailure: undefined });

describe('the slow rule', () => {
  it('is degraded when the run reports more than degradedMs, even if the attempt alone was under it', () => {
    // CI saw 5,990 ms in the attempt and 6,051 ms for the run (token step and set-up) called healthy.
    const v = verdictOf(target, run(5_990), 6_051.3, 't');
    expect(v).toMatchObject({ outcome: 'degraded', durationMs: 6_051, detail: 'slow: the run took 6051 ms (degraded above 6000 ms)' });
  });

  it('compares the rounded duration it reports: 6,000.4 ms shows as 6000 and is healthy', () => {
    expect(verdictOf(target, run(5_900), 6_000.4, 't')).toMatchObject({ outcome: 'healthy', durationMs: 6_000 });
    expect(verdictOf(target, run(5_900), 6_000.6, 't')).toMatchObject({ outcome: 'degraded', durationMs: 6_001 });
  });
});
