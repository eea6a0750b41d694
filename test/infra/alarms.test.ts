/**
 * The target alarms as synthesized: every knob (periods, N, threshold, missing data, the metric math,
 * the metrics it reads, alarm and OK actions, topics), stable names, descriptions that say what broke.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { MAX_ALARM_DESCRIPTION_CHARS } from '../../functions/brief/alarm-words.ts';
import { TargetAlarms } from '../../infra/constructs/target-alarms.ts';
import { FleetNames } from '../../infra/names.ts';
import { alarmsOf, dims, render, type AlarmProps } from './support/cfn.ts';
import { newTestApp, smallFleet, synthFleet } from './support/synth.ts';

const config = smallFleet({
  targets: smallFleet().targets.map((t) => (t.name === 'rates-prod' ? { ...t, runbookUrl: 'https://runbooks.example.com/rates' } : t)),
});
const synth = synthFleet(config);
const alarms = [...synth.templates].filter(([name]) => name.startsWith('McpCanary-alarms-')).flatMap(([, t]) => alarmsOf(t.toJSON() as never));
const byName = new Map(alarms.map((a) => [a.AlarmName, a]));
const topic = (name: string) => `arn:\${AWS::Partition}:sns:us-east-1:\${AWS::AccountId}:McpCanary-${name}`;

function regionMetrics(a: AlarmProps) {
  return a.Metrics.filter((m) => m.MetricStat).map((m) => ({ id: m.Id, returnData: m.ReturnData, ...m.MetricStat!, dims: dims(m.MetricStat!.Metric.Dimensions), name: m.MetricStat!.Metric.MetricName, ns: m.MetricStat!.Metric.Namespace }));
}
function expressionOf(a: AlarmProps): string {
  const e = a.Metrics.filter((m) => m.Expression !== undefined && m.ReturnData !== false);
  expect(e).toHaveLength(1);
  return e[0]!.Expression!;
}

describe('target alarms', () => {
  it('are three per target, named <fleet>-<target>-<kind>, in the home region alarm stacks', () => {
    expect([...byName.keys()].sort()).toEqual(
      ['docs', 'rates-prod', 'slow-one'].flatMap((t) => ['critical', 'dead-man', 'warning'].map((k) => `McpCanary-${t}-${k}`)).sort(),
    );
    expect(alarms).toHaveLength(9);
  });

  it('critical: failing in ≥ quorum regions for N runs in a row, missing data not a failure, pages on ALARM and OK', () => {
    const a = byName.get('McpCanary-rates-prod-critical')!;
    expect(a).toMatchObject({ ComparisonOperator: 'GreaterThanOrEqualToThreshold', Threshold: 2, EvaluationPeriods: 3, DatapointsToAlarm: 3, TreatMissingData: 'notBreaching' });
    expect(expressionOf(a)).toBe('(us_east_1 >= 3) + (eu_west_1 >= 3) + (ap_southeast_2 >= 3)');
    expect(regionMetrics(a)).toEqual(['us-east-1', 'eu-west-1', 'ap-southeast-2'].map((r) => expect.objectContaining({
      id: r.replace(/-/g, '_'), returnData: false, Period: 60, Stat: 'Maximum', name: 'Outcome', ns: 'McpCanary', dims: { Target: 'rates-prod', ProbeRegion: r },
    })));
    expect(a.AlarmActions!.map(render)).toEqual([topic('pages')]);
    expect(a.OKActions!.map(render)).toEqual([topic('pages')]);
  });

  it('warning: some region not healthy in each of N runs in a row; tickets on ALARM and OK', () => {
    const a = byName.get('McpCanary-docs-warning')!;
    expect(a).toMatchObject({ ComparisonOperator: 'GreaterThanOrEqualToThreshold', Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 3, TreatMissingData: 'notBreaching' });
    expect(expressionOf(a)).toBe('(us_east_1 >= 1) + (eu_west_1 >= 1) + (ap_southeast_2 >= 1)');
    expect(regionMetrics(a).map((m) => [m.Stat, m.Period, m.dims.Target])).toEqual([['Maximum', 60, 'docs'], ['Maximum', 60, 'docs'], ['Maximum', 60, 'docs']]);
    expect(a.AlarmActions!.map(render)).toEqual([topic('tickets')]);
    expect(a.OKActions!.map(render)).toEqual([topic('tickets')]);
  });

  it('dead-man: fewer regions reporting than probe, N periods in a row, missing is breaching; the canary owner', () => {
    const a = byName.get('McpCanary-rates-prod-dead-man')!;
    expect(a).toMatchObject({ ComparisonOperator: 'LessThanThreshold', Threshold: 3, EvaluationPeriods: 3, DatapointsToAlarm: 3, TreatMissingData: 'breaching' });
    expect(expressionOf(a)).toBe('(us_east_1 >= 1) + (eu_west_1 >= 1) + (ap_southeast_2 >= 1)');
    expect(regionMetrics(a).every((m) => m.Stat === 'SampleCount' && m.name === 'Outcome' && m.Period === 60)).toBe(true);
    expect(a.AlarmActions!.map(render)).toEqual([topic('canary-owner')]);
    expect(a.OKActions!.map(render)).toEqual([topic('canary-owner')]);
  });

  it("follow a target's own schedule, regions and default quorum", () => {
    const c = byName.get('McpCanary-slow-one-critical')!;
    expect(c.Threshold).toBe(1);
    expect(expressionOf(c)).toBe('(eu_west_1 >= 3)');
    expect(regionMetrics(c).map((m) => m.Period)).toEqual([300]);
    expect(byName.get('McpCanary-slow-one-dead-man')!.Threshold).toBe(1);
  });

  it('say what broke, the endpoint, the runbook and first steps, within the CloudWatch limit', () => {
    const c = byName.get('McpCanary-rates-prod-critical')!.AlarmDescription;
    expect(c).toContain('rates-prod has failed 3 time(s) in a row in at least 2 of 3 region(s): us-east-1, eu-west-1, ap-southeast-2');
    expect(c).toContain('Endpoint: https://rates.example.com/mcp');
    expect(c).toContain('Runbook: https://runbooks.example.com/rates');
    expect(c).toContain('First steps: 1) ');
    expect(byName.get('McpCanary-docs-critical')!.AlarmDescription).toContain('Runbook: https://runbooks.example.com/mcp-canary');
    expect(byName.get('McpCanary-docs-dead-man')!.AlarmDescription).toContain('for the canary owner');
    expect(byName.get('McpCanary-docs-warning')!.AlarmDescription).toContain('inconclusive');
    for (const a of alarms) expect(a.AlarmDescription.length).toBeLessThanOrEqual(MAX_ALARM_DESCRIPTION_CHARS);
  });

  it('keep a long endpoint URL within the description limit by dropping first steps, never the endpoint', () => {
    const url = `https://mcp.example.com/${'a'.repeat(800)}`;
    const s = synthFleet({ homeRegion: 'eu-west-1', targets: [{ name: 'long', url }] });
    const all = [...s.templates].filter(([name]) => name.includes('-alarms-')).flatMap(([, t]) => alarmsOf(t.toJSON() as never));
    expect(all).toHaveLength(3);
    for (const a of all) {
      expect(a.AlarmDescription.length).toBeLessThanOrEqual(MAX_ALARM_DESCRIPTION_CHARS);
      expect(a.AlarmDescription).toContain(`Endpoint: ${url}`);
    }
  });

  it('do not depend on construct ids or target order', () => {
    const reordered = synthFleet({ ...config, targets: [...config.targets].reverse() }, {}, 'McpCanary');
    const names = [...reordered.templates].filter(([name]) => name.includes('-alarms-')).flatMap(([, t]) => alarmsOf(t.toJSON() as never)).map((a) => a.AlarmName).sort();
    expect(names).toEqual([...byName.keys()].sort());
  });
});

function targetAlarmsStack(thresholds: ConstructorParameters<typeof TargetAlarms>[2]['thresholds']) {
  const { app, cleanup } = newTestApp();
  try {
    const stack = new Stack(app, 'S', { env: { region: 'us-east-1' } });
    new TargetAlarms(stack, 'rates', {
      names: new FleetNames('Snap'),
      namespace: 'McpCanary',
      target: 'rates',
      url: 'https://rates.example.com/mcp',
      regions: ['us-east-1', 'eu-west-1'],
      period: Duration.minutes(1),
      runbookUrl: 'https://runbooks.example.com/rates',
      thresholds,
      topicArns: { critical: 'arn:aws:sns:us-east-1:111122223333:pages', warning: 'arn:aws:sns:us-east-1:111122223333:tickets', 'dead-man': 'arn:aws:sns:us-east-1:111122223333:owner' },
    });
    return Template.fromStack(stack).toJSON();
  } finally {
    cleanup();
  }
}

describe('TargetAlarms', () => {
  it('snapshot test: no alarms', () => {
    const t = targetAlarmsStack({});
    expect(alarmsOf(t as never)).toHaveLength(0);
    expect(t).toMatchSnapshot();
  });

  it('snapshot test: all alarms', () => {
    const t = targetAlarmsStack({
      critical: { minFailingRegions: 2, runsInARow: 3 },
      warning: { minUnhealthyRegions: 1, runsInARow: 3 },
      'dead-man': { minReportingRegions: 2, runsInARow: 3 },
    });
    expect(alarmsOf(t as never).map((a) => a.AlarmName)).toEqual(['Snap-rates-critical', 'Snap-rates-warning', 'Snap-rates-dead-man']);
    expect(t).toMatchSnapshot();
  });
});
