/**
 * Whether the page alarm's history shows an incident's page: an ALARM during it, or an alarm that was in
 * ALARM already (an outage open when the window began pages before it; its first change inside is the OK).
 */
import { describe, expect, it } from 'vitest';
import { confirmIncident, transitionsOf } from '../../../../functions/io/history/alarm-history.ts';
import type { Incident } from '../../../../functions/io/history/timeline.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 30, 12, 0);
const item = (atMs: number, from: string, to: string, kind = 'critical') => ({
  AlarmName: `McpCanary/rates/${kind}`,
  Timestamp: new Date(atMs),
  HistoryItemType: 'StateUpdate',
  HistoryData: JSON.stringify({ oldState: { stateValue: from }, newState: { stateValue: to } }),
});
const incident = (x: Partial<Incident>): Incident => ({
  startMs: T0,
  endMs: T0 + 10 * MIN,
  pagedAtMs: T0 + 3 * MIN,
  durationMs: 10 * MIN,
  countedMs: 10 * MIN,
  maintenance: 'none',
  failureClass: null,
  startedBeforeWindow: false,
  ...x,
});

describe('confirmIncident', () => {
  it('says paged when the critical alarm entered ALARM during the incident', () => {
    const t = transitionsOf('McpCanary', [item(T0 + 3 * MIN + 6_000, 'OK', 'ALARM'), item(T0 + 11 * MIN, 'ALARM', 'OK')]);
    expect(confirmIncident(incident({}), t, T0, MIN)).toBe('paged');
  });

  it('says paged for an outage already open when the window began: the first change the history shows leaves ALARM', () => {
    // The ALARM itself was before the window (and before the history read); inside it, only the OK.
    const t = transitionsOf('McpCanary', [item(T0 + 10 * MIN + 6_000, 'ALARM', 'OK')]);
    const open = incident({ pagedAtMs: T0 - 20 * MIN, startedBeforeWindow: true });
    expect(confirmIncident(open, t, T0, MIN)).toBe('paged');
  });

  it('says not-paged when the alarm stayed OK, or only the ticket alarm moved', () => {
    const t = transitionsOf('McpCanary', [item(T0 + 4 * MIN, 'OK', 'ALARM', 'warning'), item(T0 + 30 * MIN, 'OK', 'ALARM')]);
    expect(confirmIncident(incident({}), t, T0, MIN)).toBe('not-paged');
    // A change that leaves ALARM long after the incident ended says nothing about it.
    const late = transitionsOf('McpCanary', [item(T0 + 40 * MIN, 'ALARM', 'OK')]);
    expect(confirmIncident(incident({}), late, T0, MIN)).toBe('not-paged');
  });

  it('does not take a later page for one still open at the end of a window that ended in the past', () => {
    // Open at the window's end (10 min in); the alarm went to ALARM a day later, for something else.
    const t = transitionsOf('McpCanary', [item(T0 + 86_400_000, 'OK', 'ALARM')]);
    expect(confirmIncident(incident({ endMs: null }), t, T0, MIN)).toBe('not-paged');
    const paged = transitionsOf('McpCanary', [item(T0 + 10 * MIN + 6_000, 'OK', 'ALARM')]);
    expect(confirmIncident(incident({ endMs: null }), paged, T0, MIN)).toBe('paged');
  });

  it('says unknown for an incident older than the history read', () => {
    expect(confirmIncident(incident({}), [], T0 + MIN, MIN)).toBe('unknown');
  });
});
