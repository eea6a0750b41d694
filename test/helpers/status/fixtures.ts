/**
 * A status payload and histories in every state the page must show, at a fixed instant: one target up,
 * one down with an open incident (2 of 3 regions), one degraded, one under maintenance, one with no data,
 * and a display name that is markup. The same fixture drives the unit tests and the Chromium test.
 */
import type { StatusPayload } from '../../../functions/base/config/schema/status-page.ts';
import type { TargetHistory } from '../../../functions/lambdas/status/snapshot.ts';

export const NOW = Date.UTC(2026, 11, 1, 15, 0);
const MIN = 60_000;
const DAY = 86_400_000;
export const at = (h: number, m: number, dayOffset = 0) => Date.UTC(2026, 11, 1 + dayOffset, h, m);
const since90 = NOW - 89 * DAY - (NOW % DAY);

export const MARKUP_NAME = '<script>alert("pwned")</script> & Co';

export function statusPayload(): StatusPayload {
  const target = (metric: string, name: string) => ({ metric, name, regions: 3, quorum: 2, periodSeconds: 60 });
  return {
    title: 'Acme MCP status',
    fleet: 'McpCanary',
    namespace: 'McpCanaryTest',
    failureThreshold: 3,
    days: 90,
    targets: [
      target('search-prod', 'Search tools'),
      target('rates-prod', 'Rates API'),
      target('docs-prod', 'Docs search'),
      target('tickets-prod', 'Ticketing'),
      target('new-prod', MARKUP_NAME),
    ],
    maintenance: [
      // Now: 14:30–16:30 UTC today, covering Ticketing.
      { schedule: 'at(2026-12-01T14:30)', duration: '2 hours', targets: ['Ticketing'] },
      // Every Sunday 02:00 UTC for 1 hour, covering Search tools: past ones and an upcoming one.
      { schedule: 'cron(0 2 * * SUN)', duration: '1 hour', targets: ['Search tools'] },
    ],
  };
}

/** Histories: "up" everywhere since 90 days ago unless said otherwise. */
export function statusHistories(): TargetHistory[] {
  return [
    {
      metric: 'search-prod',
      segments: [
        { start: since90, end: at(23, 50, -3), state: 'up' },
        { start: at(23, 50, -3), end: at(0, 20, -2), state: 'down' },
        { start: at(0, 20, -2), end: at(14, 2), state: 'up' },
        { start: at(14, 2), end: at(14, 31), state: 'down' },
        { start: at(14, 31), end: NOW, state: 'up' },
      ],
      incidents: [
        { kind: 'outage', start: at(14, 2), end: at(14, 31), failedRegions: 2, unhealthyRegions: 2, regions: 3 },
        {
          kind: 'outage',
          start: at(23, 50, -3),
          end: at(0, 20, -2),
          failedRegions: 3,
          unhealthyRegions: 3,
          regions: 3,
          failureClass: 'tool_error',
        },
      ],
    },
    {
      metric: 'rates-prod',
      segments: [
        { start: since90, end: at(14, 32), state: 'up' },
        { start: at(14, 32), end: NOW, state: 'down' },
      ],
      incidents: [
        { kind: 'outage', start: at(14, 32), end: null, failedRegions: 2, unhealthyRegions: 2, regions: 3, failureClass: 'auth' },
      ],
    },
    {
      metric: 'docs-prod',
      segments: [
        { start: since90, end: at(14, 40), state: 'up' },
        { start: at(14, 40), end: NOW, state: 'degraded' },
      ],
      incidents: [{ kind: 'degraded', start: at(14, 40), end: null, failedRegions: 0, unhealthyRegions: 1, regions: 3 }],
    },
    { metric: 'tickets-prod', segments: [{ start: since90, end: NOW, state: 'up' }], incidents: [] },
    { metric: 'new-prod', segments: [{ start: since90, end: NOW - 30 * MIN, state: 'up' }], incidents: [] },
  ];
}
