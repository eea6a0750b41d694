/**
 * Joining the retention tiers' reads (functions/status/gather.ts): a newer read wins where they overlap,
 * an older read counts only before it, so no stretch is missing or counted twice when a cached tier ended
 * up to an hour ago. The reads themselves are proven against moto (test/integration/status/publish.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { joined } from '../../../functions/status/gather.ts';

describe('joining tier reads', () => {
  it('cuts an older read where the newer one starts, segments and incidents alike', () => {
    const h = joined('t', [
      {
        target: 't',
        startMs: 80,
        segments: [{ start: 80, end: 120, state: 'down' }],
        incidents: [{ kind: 'outage', start: 80, end: null, failedRegions: 2, regions: 3 }],
      },
      {
        target: 't',
        startMs: 0,
        segments: [
          { start: 0, end: 50, state: 'up' },
          { start: 50, end: 100, state: 'degraded' },
        ],
        incidents: [
          { kind: 'degraded', start: 50, end: 100, failedRegions: 1, regions: 3 },
          { kind: 'outage', start: 90, end: 100, failedRegions: 2, regions: 3 },
        ],
      },
    ]);
    expect(h.segments).toEqual([
      { start: 0, end: 50, state: 'up' },
      { start: 50, end: 80, state: 'degraded' },
      { start: 80, end: 120, state: 'down' },
    ]);
    expect(h.incidents.map((i) => [i.kind, i.start, i.end])).toEqual([
      ['degraded', 50, 80],
      ['outage', 80, null],
    ]);
  });
});
