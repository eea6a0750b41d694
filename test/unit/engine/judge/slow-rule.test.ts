/** The slow rule reads the duration the verdict reports, so the two never disagree. */
import { describe, expect, it } from 'vitest';
import { Outcome } from '../../../../functions/base/common/verdict.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import type { Attempt } from '../../../../functions/engine/probe/attempt.ts';
import { verdictOf } from '../../../../functions/engine/judge/verdict.ts';

const target = Target.parse({ name: 'rates', url: 'https://mcp.example.com/mcp', tool: { name: 'get_rate' }, degradedMs: 6_000 });
/** A healthy attempt: it carries no duration of its own, the rule reads the run's. */
const healthy: Attempt = {
  outcome: Outcome.healthy,
  failure: null,
  detail: 'get_rate answered as expected',
  retryable: false,
  revision: null,
  server: null,
  probes: [],
  listed: null,
  fault: null,
};
const run = { last: healthy, retries: 0, firstFailure: undefined };

describe('the slow rule', () => {
  it('is degraded when the run reports more than degradedMs, token step and set-up included', () => {
    // CI saw runs of 6,004–6,051 ms called healthy: the rule read the attempt alone, without those.
    const v = verdictOf(target, run, 6_051.3, 't');
    expect(v).toMatchObject({ outcome: 'degraded', durationMs: 6_051, detail: 'slow: the run took 6051 ms (degraded above 6000 ms)' });
  });

  it('compares the rounded duration it reports: 6,000.4 ms shows as 6000 and is healthy', () => {
    expect(verdictOf(target, run, 6_000.4, 't')).toMatchObject({ outcome: 'healthy', durationMs: 6_000 });
    expect(verdictOf(target, run, 6_000.6, 't')).toMatchObject({ outcome: 'degraded', durationMs: 6_001 });
  });
});
