/** Reading the inputs: the alarm state-change event, run record log lines, the brief's environment. */
import { describe, expect, it } from 'vitest';
import {
  alarmName,
  AlarmKind,
  canaryAlarmName,
  describeAlarm,
  fleetAlarmPattern,
  parseAlarmDescription,
  parseAlarmName,
} from '../../../../functions/base/common/alarm-words.ts';
import { BriefEnvVar, quorumsText, readBriefEnv } from '../../../../functions/base/config/env/brief-env.ts';
import { readAlarmChange } from '../../../../functions/lambdas/brief/event.ts';
import { parseRunRecord, runRecordFilter } from '../../../../functions/lambdas/brief/records.ts';
import { alarmsOf } from '../../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../../helpers/infra/synth.ts';
import { alarmEvent, minute, record, verdict } from '../../../helpers/brief/fixtures.ts';

const synth = synthFleet(smallFleet());
const alarms = [...synth.templates].filter(([n]) => n.includes('-alarms-')).flatMap(([, t]) => alarmsOf(t.toJSON() as never));

describe('alarm names and descriptions', () => {
  it('round-trip target and kind, including targets with dashes and kinds with dashes', () => {
    for (const kind of Object.values(AlarmKind)) {
      expect(parseAlarmName('Fleet-1', alarmName('Fleet-1', 'rates-prod-eu', kind))).toEqual({ target: 'rates-prod-eu', kind });
    }
    expect(parseAlarmName('Fleet', 'Other/rates/critical')).toBeNull();
    expect(parseAlarmName('Fleet', 'Fleet/canary/run-1m-errors')).toBeNull();
  });

  it("draw an exact fleet boundary: fleet Mcp's pattern never matches fleet Mcp-Prod's alarms", () => {
    const pattern = new RegExp(
      `^${fleetAlarmPattern('Mcp')
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')}$`,
    );
    expect(pattern.test(alarmName('Mcp', 'rates', AlarmKind.critical))).toBe(true);
    expect(pattern.test(canaryAlarmName('Mcp', 'schedule-dlq'))).toBe(true);
    expect(pattern.test(alarmName('Mcp-Prod', 'rates', AlarmKind.critical))).toBe(false);
    expect(pattern.test(canaryAlarmName('Mcp-Prod', 'schedule-dlq'))).toBe(false);
    expect(parseAlarmName('Mcp', alarmName('Mcp-Prod', 'rates', AlarmKind.critical))).toBeNull();
  });

  it('carry the endpoint, the regions and the runbook back to the brief', () => {
    const d = describeAlarm({
      kind: AlarmKind.critical,
      target: 't',
      url: 'https://t.example.com/mcp',
      regions: ['eu-west-1'],
      quorum: 1,
      failureThreshold: 3,
      periodSeconds: 60,
      runbookUrl: 'https://rb.example.com/t',
      runLogGroup: '/g',
    });
    expect(parseAlarmDescription(d)).toEqual({
      endpoint: 'https://t.example.com/mcp',
      regions: ['eu-west-1'],
      runbookUrl: 'https://rb.example.com/t',
    });
    const none = describeAlarm({
      kind: AlarmKind.warning,
      target: 't',
      url: 'https://t.example.com/mcp',
      regions: ['eu-west-1'],
      quorum: 1,
      failureThreshold: 3,
      periodSeconds: 60,
      runLogGroup: '/g',
    });
    expect(parseAlarmDescription(none)).toEqual({ endpoint: 'https://t.example.com/mcp', regions: ['eu-west-1'] });
  });
});

describe('readAlarmChange', () => {
  const critical = alarms.find((a) => a.AlarmName === 'McpCanary/slow-one/critical')!;

  it('reads target, kind, regions (from the description) and period from the alarm in the event', () => {
    const c = readAlarmChange(alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: minute(15) }), 'McpCanary', ['us-east-1']);
    expect(c).toMatchObject({
      alarmName: 'McpCanary/slow-one/critical',
      target: 'slow-one',
      kind: 'critical',
      regions: ['eu-west-1'],
      periodSeconds: 300,
      state: 'ALARM',
      previousState: 'OK',
      endpoint: 'https://slow.example.com/mcp',
      runbookUrl: 'https://runbooks.example.com/mcp-canary',
    });
    expect(c!.changedAt.toISOString()).toBe(minute(15).toISOString());
  });

  it("ignores other fleets' alarms and other events", () => {
    expect(readAlarmChange(alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: minute(1) }), 'OtherFleet', [])).toBeNull();
    expect(readAlarmChange({ 'detail-type': 'Scheduled Event', detail: {} }, 'McpCanary', [])).toBeNull();
    expect(readAlarmChange(null, 'McpCanary', [])).toBeNull();
  });

  it('falls back to the fleet regions when the description names none', () => {
    const e = alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: minute(1) });
    e.detail.configuration.description = e.detail.configuration.description
      .split('\n')
      .filter((l) => !l.startsWith('Regions: '))
      .join('\n');
    expect(readAlarmChange(e, 'McpCanary', ['us-east-1', 'eu-west-1'])!.regions).toEqual(['us-east-1', 'eu-west-1']);
  });
});

describe('parseRunRecord', () => {
  const r = record(verdict('rates-prod', 'failed', 'timeout'), 'eu-west-1', minute(2));
  const line = JSON.stringify(r);

  it('reads the line as the run writes it, and inside the Lambda text prefix or JSON log format', () => {
    expect(parseRunRecord(line)).toEqual(r);
    expect(parseRunRecord(`2026-11-29T22:02:00.500Z\t3f1c\tINFO\t${line}`)).toEqual(r);
    expect(parseRunRecord(JSON.stringify({ timestamp: '2026-11-29T22:02:00Z', level: 'INFO', requestId: 'x', message: r }))).toEqual(r);
    expect(parseRunRecord(JSON.stringify({ timestamp: '2026-11-29T22:02:00Z', level: 'INFO', message: line }))).toEqual(r);
  });

  it('rejects what is not a run record', () => {
    expect(parseRunRecord('START RequestId: 3f1c Version: $LATEST')).toBeNull();
    expect(parseRunRecord(JSON.stringify({ message: 'mcp-canary publish failed', targets: ['rates-prod'] }))).toBeNull();
    expect(parseRunRecord(JSON.stringify({ ...r, verdict: { ...r.verdict, outcome: 'weird' } }))).toBeNull();
    expect(parseRunRecord('{ not json')).toBeNull();
  });

  it('filters server-side on the message and the exact target', () => {
    expect(runRecordFilter('rates-prod')).toBe('{ ($.message = "mcp-canary run") && ($.target = "rates-prod") }');
  });
});

describe('readBriefEnv', () => {
  const env = {
    [BriefEnvVar.topicArn]: 'arn:aws:sns:us-east-1:1:b',
    [BriefEnvVar.fleet]: 'F',
    [BriefEnvVar.runLogGroup]: '/g',
    [BriefEnvVar.failureThreshold]: '3',
    [BriefEnvVar.probeRegions]: 'us-east-1, eu-west-1',
    [BriefEnvVar.quorum]: '1:1,2:2',
  };

  it('reads every variable once, the quorum by number of regions as the stack writes it', () => {
    expect(readBriefEnv(env)).toEqual({
      topicArn: 'arn:aws:sns:us-east-1:1:b',
      fleet: 'F',
      runLogGroup: '/g',
      failureThreshold: 3,
      quorums: new Map([
        [1, 1],
        [2, 2],
      ]),
      probeRegions: ['us-east-1', 'eu-west-1'],
    });
    expect(quorumsText(readBriefEnv({ ...env, [BriefEnvVar.quorum]: '5:3, 1:1' }).quorums)).toBe('1:1,5:3');
  });

  it('names a missing or bad variable', () => {
    expect(() => readBriefEnv({ ...env, [BriefEnvVar.topicArn]: '' })).toThrow(
      'Environment variable MCP_CANARY_BRIEF_TOPIC_ARN is required',
    );
    expect(() => readBriefEnv({ ...env, [BriefEnvVar.failureThreshold]: 'three' })).toThrow(
      'MCP_CANARY_FAILURE_THRESHOLD must be a whole number ≥ 1, got "three"',
    );
    expect(() => readBriefEnv({ ...env, [BriefEnvVar.quorum]: '' })).toThrow('Environment variable MCP_CANARY_QUORUM is required');
    expect(() => readBriefEnv({ ...env, [BriefEnvVar.quorum]: '2' })).toThrow(
      'MCP_CANARY_QUORUM must list regions:quorum pairs, e.g. 1:1,3:2; got "2" in "2"',
    );
  });
});
