/**
 * The brief's words, from alarm events of the synthesized alarms and run records: Gatus-style headlines,
 * each region with what its last run saw, the facts on-call needs, a chat notification in the custom
 * format, and a dedup key that is the same for the same transition.
 */
import { describe, expect, it } from 'vitest';
import { composeBrief, dedupKey, MAX_DETAIL_CHARS, subjectOf } from '../../../../functions/lambdas/brief/compose.ts';
import { readAlarmChange } from '../../../../functions/lambdas/brief/event.ts';
import type { RegionRecords } from '../../../../functions/lambdas/brief/records.ts';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import { alarmsOf } from '../../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../../helpers/infra/synth.ts';
import { alarmEvent, minute, record, verdict } from '../../../helpers/brief/fixtures.ts';

const synth = synthFleet(smallFleet());
const alarms = [...synth.templates].filter(([n]) => n.includes('-alarms-')).flatMap(([, t]) => alarmsOf(t.toJSON() as never));
const alarm = (name: string) => alarms.find((a) => a.AlarmName === name)!;
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

const probes = [
  { name: 'discover' as const, ok: true, durationMs: 120, detail: 'server rates 1.2.3 speaks 2026-07-28', failure: null },
  { name: 'tools/list' as const, ok: true, durationMs: 80, detail: '3 tools, get_rate annotated read-only', failure: null },
  {
    name: 'tools/call' as const,
    ok: false,
    durationMs: 40,
    detail: 'HTTP 503 Service Unavailable: upstream rates feed down',
    failure: 'http_status' as const,
  },
];
const failed = (region: string, k: number) =>
  record(verdict('rates-prod', 'failed', 'http_status', 'tools/call answered HTTP 503 Service Unavailable', probes), region, minute(k));
const healthy = (region: string, k: number) => record(verdict('rates-prod', 'healthy'), region, minute(k));

function evidence(byRegion: Record<string, RunRecord[]>): RegionRecords[] {
  return REGIONS.map((region) => ({ region, records: byRegion[region] ?? [] }));
}
function change(name: string, state: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA', previous: 'ALARM' | 'OK', atMinute: number) {
  const c = readAlarmChange(alarmEvent(alarm(name), { state, previous, at: minute(atMinute) }), 'McpCanary', []);
  if (!c) throw new Error('not parsed');
  return c;
}

describe('composeBrief', () => {
  const outage = evidence({
    'us-east-1': [healthy('us-east-1', 0), failed('us-east-1', 1), failed('us-east-1', 2), failed('us-east-1', 3)],
    'eu-west-1': [healthy('eu-west-1', 0), failed('eu-west-1', 1), failed('eu-west-1', 2), failed('eu-west-1', 3)],
    'ap-southeast-2': [
      healthy('ap-southeast-2', 0),
      healthy('ap-southeast-2', 1),
      healthy('ap-southeast-2', 2),
      healthy('ap-southeast-2', 3),
    ],
  });

  it('pages in Gatus words: failed N time(s) in a row in k of R regions, each region with what it saw', () => {
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4),
      evidence: outage,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe('🔴 ALARM: rates-prod has failed 3 time(s) in a row in 2 of 3 regions');
    expect(b.text).toContain('Endpoint: https://rates.example.com/mcp');
    expect(b.text).toContain('Failure class: http_status');
    expect(b.text).toContain(`First failure: ${minute(1).toISOString()}`);
    expect(b.text).toContain(`Last failure: ${minute(3).toISOString()}`);
    expect(b.text).toContain('Era: 2026-07-28');
    expect(b.text).toContain('Server: rates 1.2.3');
    expect(b.text).toContain(`us-east-1: ❌ failed 3 time(s) in a row (http_status), last run ${minute(3).toISOString()} (420 ms)`);
    expect(b.text).toContain('    ❌ tools/call 40 ms: http_status: HTTP 503 Service Unavailable: upstream rates feed down');
    expect(b.text).toContain('    ✅ discover 120 ms: server rates 1.2.3 speaks 2026-07-28');
    expect(b.text).toContain(`ap-southeast-2: ✅ healthy, last run ${minute(3).toISOString()} (420 ms)`);
    expect(b.text).toContain('Runbook: https://runbooks.example.com/mcp-canary');
    expect(b.text).toContain('Reproduce: npx mcp-canary check https://rates.example.com/mcp');
    expect(b.subject).toBe('ALARM: rates-prod has failed 3 time(s) in a row in 2 of 3 regions');
  });

  it('is a custom notification a chat channel renders, threaded per alarm, with the facts as context', () => {
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4),
      evidence: outage,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.chat).toMatchObject({
      version: '1.0',
      source: 'custom',
      id: b.dedupKey,
      content: { textType: 'client-markdown', title: '🔴 rates-prod has failed 3 time(s) in a row in 2 of 3 regions' },
    });
    expect(b.chat.metadata.threadId).toBe('McpCanary/rates-prod/critical');
    expect(b.chat.metadata.eventType).toBe('mcp-canary.critical.ALARM');
    expect(b.chat.metadata.relatedResources).toEqual(['arn:aws:cloudwatch:us-east-1:111122223333:alarm:McpCanary/rates-prod/critical']);
    expect(b.chat.content.nextSteps[0]).toBe('Open the runbook: https://runbooks.example.com/mcp-canary');
    expect(b.chat.content.keywords).toEqual(['mcp-canary', 'rates-prod', 'critical', 'ALARM', 'http_status']);
    expect(b.chat.metadata.additionalContext).toMatchObject({
      dedupKey: b.dedupKey,
      target: 'rates-prod',
      failureClass: 'http_status',
      regions: REGIONS.join(','),
      firstFailureAt: minute(1).toISOString(),
      era: '2026-07-28',
    });
    for (const v of Object.values(b.chat.metadata.additionalContext)) expect(typeof v).toBe('string');
    expect(b.chat.content.description).toContain('*Failure class:* `http_status`');
  });

  it('keys a transition deterministically: same alarm, state and time → same key; anything else → another', () => {
    const c = change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4);
    const a = composeBrief({ change: c, evidence: outage, failureThreshold: 3, quorum: 2 });
    const b = composeBrief({ change: c, evidence: evidence({}), failureThreshold: 3, quorum: 2 });
    expect(a.dedupKey).toBe(b.dedupKey);
    expect(a.dedupKey).toMatch(/^[0-9a-f]{32}$/);
    expect(dedupKey({ ...c, state: 'OK' })).not.toBe(a.dedupKey);
    expect(dedupKey({ ...c, changedAt: minute(5) })).not.toBe(a.dedupKey);
    expect(dedupKey({ ...c, alarmName: 'McpCanary/docs/critical' })).not.toBe(a.dedupKey);
  });

  it('says "at least quorum" when the logs read show fewer regions than the alarm saw', () => {
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4),
      evidence: evidence({}),
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe('🔴 ALARM: rates-prod has failed 3 time(s) in a row in at least 2 of 3 regions');
    expect(b.text).toContain('us-east-1: ⚫ no run recorded in the window read');
  });

  it('says how many regions could not judge when the page came from the regions that do (below the quorum of all)', () => {
    const unjudged = (region: string, k: number) =>
      record(
        verdict('rates-prod', 'inconclusive', null, 'headerSecrets: the credentials were not read in time (5012 ms)'),
        region,
        minute(k),
      );
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4),
      evidence: evidence({
        'us-east-1': [failed('us-east-1', 1), failed('us-east-1', 2), failed('us-east-1', 3)],
        'eu-west-1': [unjudged('eu-west-1', 1), unjudged('eu-west-1', 2), unjudged('eu-west-1', 3)],
        'ap-southeast-2': [unjudged('ap-southeast-2', 1), unjudged('ap-southeast-2', 2), unjudged('ap-southeast-2', 3)],
      }),
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe(
      '🔴 ALARM: rates-prod has failed 3 time(s) in a row in 1 of 3 regions; 2 could not judge it (inconclusive)',
    );
  });

  it('resolves with the episode it closes: when the failures began and ended', () => {
    const recovered = evidence({
      'us-east-1': [failed('us-east-1', 1), failed('us-east-1', 2), failed('us-east-1', 3), healthy('us-east-1', 4)],
      'eu-west-1': [failed('eu-west-1', 1), failed('eu-west-1', 2), failed('eu-west-1', 3), healthy('eu-west-1', 4)],
      'ap-southeast-2': [healthy('ap-southeast-2', 4)],
    });
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'OK', 'ALARM', 5),
      evidence: recovered,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe('✅ OK: rates-prod is resolved: its last run was not failing in 3 of 3 regions');
    expect(b.text).toContain(`First failure: ${minute(1).toISOString()}`);
    expect(b.text).toContain(`Last failure: ${minute(3).toISOString()}`);
    expect(b.chat.metadata.threadId).toBe('McpCanary/rates-prod/critical');
  });

  it('tickets name the unhealthy region and how it is unhealthy', () => {
    const oneRegion = evidence({
      'us-east-1': [healthy('us-east-1', 1), healthy('us-east-1', 2), healthy('us-east-1', 3)],
      'eu-west-1': [failed('eu-west-1', 1), failed('eu-west-1', 2), failed('eu-west-1', 3)],
      'ap-southeast-2': [healthy('ap-southeast-2', 1), healthy('ap-southeast-2', 2), healthy('ap-southeast-2', 3)],
    });
    const b = composeBrief({
      change: change('McpCanary/rates-prod/warning', 'ALARM', 'OK', 4),
      evidence: oneRegion,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe('🟠 ALARM: rates-prod has been unhealthy 3 time(s) in a row in eu-west-1 (failed)');
  });

  it('says how the named regions are unhealthy, not how a region that is not in a row last ran', () => {
    // Prepare: eu-west-1 degraded 3 in a row; us-east-1 failed once just now (1 of 3: not in a row, not named).
    const degraded = (region: string, k: number) => record(verdict('rates-prod', 'degraded'), region, minute(k));
    const mixed = evidence({
      'us-east-1': [healthy('us-east-1', 1), healthy('us-east-1', 2), failed('us-east-1', 3)],
      'eu-west-1': [degraded('eu-west-1', 1), degraded('eu-west-1', 2), degraded('eu-west-1', 3)],
      'ap-southeast-2': [healthy('ap-southeast-2', 1), healthy('ap-southeast-2', 2), healthy('ap-southeast-2', 3)],
    });
    // Act
    const b = composeBrief({
      change: change('McpCanary/rates-prod/warning', 'ALARM', 'OK', 4),
      evidence: mixed,
      failureThreshold: 3,
      quorum: 2,
    });
    // Assess
    expect(b.text.split('\n')[0]).toBe('🟠 ALARM: rates-prod has been unhealthy 3 time(s) in a row in eu-west-1 (degraded)');
  });

  it('tells the canary owner which region went silent and when it last ran', () => {
    const silent = evidence({
      'us-east-1': [healthy('us-east-1', 5)],
      'eu-west-1': [healthy('eu-west-1', 0)],
      'ap-southeast-2': [healthy('ap-southeast-2', 5)],
    });
    const b = composeBrief({
      change: change('McpCanary/rates-prod/dead-man', 'ALARM', 'OK', 5),
      evidence: silent,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe(
      '⚫ ALARM: no run of rates-prod was recorded in eu-west-1 for 3 period(s): the canary is broken there',
    );
    expect(b.text).toContain(`eu-west-1: ✅ healthy, last run ${minute(0).toISOString()}`);
  });

  it('tells the canary owner when every region fell silent (the dead-man going to INSUFFICIENT_DATA)', () => {
    const silent = evidence({
      'us-east-1': [failed('us-east-1', 0)],
      'eu-west-1': [failed('eu-west-1', 0)],
      'ap-southeast-2': [failed('ap-southeast-2', 0)],
    });
    const b = composeBrief({
      change: change('McpCanary/rates-prod/dead-man', 'INSUFFICIENT_DATA', 'OK', 7),
      evidence: silent,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text.split('\n')[0]).toBe(
      '⚫ INSUFFICIENT_DATA: no run of rates-prod in any of its 3 regions: the canary is silent everywhere',
    );
  });

  it("says when a region's log could not be read, and still briefs", () => {
    const partial: RegionRecords[] = [
      ...outage.slice(0, 2),
      { region: 'ap-southeast-2', records: [], error: 'AccessDeniedException: not authorized' },
    ];
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4),
      evidence: partial,
      failureThreshold: 3,
      quorum: 2,
    });
    expect(b.text).toContain('ap-southeast-2: ⚠️ its run log could not be read: AccessDeniedException: not authorized');
    expect(b.text.split('\n')[0]).toContain('in 2 of 3 regions');
  });

  it('cuts long detail lines and keeps subjects ASCII under 100 characters', () => {
    const long = record(verdict('rates-prod', 'failed', 'assertion', 'x'.repeat(2000)), 'us-east-1', minute(3));
    const b = composeBrief({
      change: change('McpCanary/rates-prod/critical', 'ALARM', 'OK', 4),
      evidence: evidence({ 'us-east-1': [long] }),
      failureThreshold: 3,
      quorum: 2,
    });
    const line = b.text.split('\n').find((l) => l.includes('xxxx'))!;
    expect(line.trim().length).toBe(MAX_DETAIL_CHARS);
    expect(subjectOf(`ALARM: ${'é'.repeat(50)}${'a'.repeat(200)} 🔴`)).toMatch(/^[\x20-\x7e]{1,99}$/);
  });
});
