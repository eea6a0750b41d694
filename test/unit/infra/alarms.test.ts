/**
 * The target alarms as synthesized: every knob (periods, N, threshold, missing data, the metric math,
 * the metric it reads, alarm, OK and INSUFFICIENT_DATA actions, topics), stable names, descriptions that
 * say what broke. What they do over time is in replay.test.ts and timing.test.ts.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { MAX_ALARM_DESCRIPTION_CHARS } from '../../../functions/base/common/alarm-words.ts';
import { RUN_SKIPPED_MESSAGE, verdictValue } from '../../../functions/base/common/run-record.ts';
import { failingRegions } from '../../../infra/constructs/alarm-math.ts';
import { TargetAlarms } from '../../../infra/constructs/target-alarms.ts';
import { FleetNames } from '../../../infra/plan/names.ts';
import { alarmsOf, dims, render, type AlarmProps } from '../../helpers/infra/cfn.ts';
import { evaluateExpression } from '../../helpers/infra/cloudwatch-alarm.ts';
import { newTestApp, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';

const config = smallFleet({
  targets: smallFleet().targets.map((t) => (t.name === 'rates-prod' ? { ...t, runbookUrl: 'https://runbooks.example.com/rates' } : t)),
});
const synth = synthFleet(config);
const alarms = [...synth.templates]
  .filter(([name]) => name.startsWith('McpCanary-alarms-'))
  .flatMap(([, t]) => alarmsOf(t.toJSON() as never));
const byName = new Map(alarms.map((a) => [a.AlarmName, a]));
const topic = (name: string) => `arn:\${AWS::Partition}:sns:us-east-1:\${AWS::AccountId}:McpCanary-${name}`;

function readMetrics(a: AlarmProps) {
  return a
    .Metrics!.filter((m) => m.MetricStat)
    .map((m) => ({
      id: m.Id,
      returnData: m.ReturnData,
      ...m.MetricStat!,
      dims: dims(m.MetricStat!.Metric.Dimensions),
      name: m.MetricStat!.Metric.MetricName,
      ns: m.MetricStat!.Metric.Namespace,
    }));
}
function expressionOf(a: AlarmProps): string {
  const e = a.Metrics!.filter((m) => m.Expression !== undefined && m.ReturnData !== false);
  expect(e).toHaveLength(1);
  return e[0]!.Expression!;
}
/** The one Verdict metric of the target, read as Sum (failing) and SampleCount (reports). */
const verdictReads = (target: string, period = 60) => [
  expect.objectContaining({
    id: 'failing',
    returnData: false,
    Period: period,
    Stat: 'Sum',
    name: 'Verdict',
    ns: 'McpCanary',
    dims: { Target: target },
  }),
  expect.objectContaining({
    id: 'reports',
    returnData: false,
    Period: period,
    Stat: 'SampleCount',
    name: 'Verdict',
    ns: 'McpCanary',
    dims: { Target: target },
  }),
];

describe('target alarms', () => {
  it('are three per target, named <fleet>/<target>/<kind>, in the home region alarm stacks', () => {
    expect([...byName.keys()].sort()).toEqual(
      ['docs', 'rates-prod', 'slow-one'].flatMap((t) => ['critical', 'dead-man', 'warning'].map((k) => `McpCanary/${t}/${k}`)).sort(),
    );
    expect(alarms).toHaveLength(9);
  });

  it('critical: ≥ quorum regions failing, counted only where already determined, N in a row; ignore keeps the state; pages on ALARM and OK', () => {
    const a = byName.get('McpCanary/rates-prod/critical')!;
    expect(a).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 2,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'ignore',
    });
    expect(expressionOf(a)).toBe(failingRegions(3, 2));
    expect(readMetrics(a)).toEqual(verdictReads('rates-prod'));
    expect(a.AlarmActions!.map(render)).toEqual([topic('pages')]);
    expect(a.OKActions!.map(render)).toEqual([topic('pages')]);
    expect(a.InsufficientDataActions).toBeUndefined();
  });

  it.each([
    // Every region reported: failed (F), inconclusive (I), healthy (H); the value is F + I where determined.
    ['FFF', 3, 3],
    ['FFH', 3, 2],
    ['FHH', 3, 1], // not breaching: 1 < 2
    ['FII', 3, 3], // breaching: the one region that judged failed
    ['FFI', 3, 3],
    ['HHI', 3, 1], // not breaching: 2 regions judged it not failing
    ['III', 3, undefined], // nobody judged: undetermined, the alarm keeps its state
    ['HII', 3, undefined], // one healthy is not enough to resolve (R − k = 1)
    ['FHI', 3, undefined], // 1 of 2 judging failed: below the quorum's share, and k failures still possible
    // Partial periods (a region still on its way): only what cannot change is a value.
    ['FF', 3, 2],
    ['HH', 3, 0],
    ['FH', 3, undefined],
    ['FI', 3, undefined], // the late region may judge it healthy
  ] as const)('critical decodes one period %s of %i regions (quorum 2) to %s', (codes, _r, value) => {
    const e = expressionOf(byName.get('McpCanary/rates-prod/critical')!);
    const code = { F: 'failed', I: 'inconclusive', H: 'healthy' } as const;
    const sum = [...codes].reduce((s, c) => s + verdictValue({ outcome: code[c as keyof typeof code], warnings: [] }), 0);
    const data = new Map([
      ['failing', new Map([[0, sum]])],
      ['reports', new Map([[0, codes.length]])],
    ]);
    expect(evaluateExpression(e, data).get(0)).toBe(value);
  });

  it('critical reads a period written by runs of the old code (1/64 per ticket run) as the old alarm did', () => {
    const e = expressionOf(byName.get('McpCanary/rates-prod/critical')!);
    const at = (sum: number, reports: number) =>
      evaluateExpression(
        e,
        new Map([
          ['failing', new Map([[0, sum]])],
          ['reports', new Map([[0, reports]])],
        ]),
      ).get(0);
    expect(at(2 + 1 / 64, 3)).toBe(2); // two failed, one degraded: breaching
    expect(at(1 + 1 / 64, 3)).toBe(1); // one failed, one degraded: not breaching, not held open by a misread
    expect(at(1 + 2 / 64, 3)).toBe(1); // one failed, two ticket runs: never a page from a misread
  });

  it('warning: some region needs a ticket, determined, N in a row; tickets on ALARM and OK', () => {
    const a = byName.get('McpCanary/docs/warning')!;
    expect(a).toMatchObject({
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'ignore',
    });
    expect(expressionOf(a)).toBe('IF(failing > 0, failing, IF(reports >= 3, failing))');
    expect(readMetrics(a)).toEqual(verdictReads('docs'));
    expect(a.AlarmActions!.map(render)).toEqual([topic('tickets')]);
    expect(a.OKActions!.map(render)).toEqual([topic('tickets')]);
  });

  it('dead-man: fewer regions reporting than probe in max(N, 3) periods in a row, or none at all (INSUFFICIENT_DATA); the canary owner', () => {
    const a = byName.get('McpCanary/rates-prod/dead-man')!;
    expect(a).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 3,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'missing',
    });
    expect(a).toMatchObject({ MetricName: 'Verdict', Namespace: 'McpCanary', Statistic: 'SampleCount', Period: 60 });
    expect(dims(a.Dimensions!)).toEqual({ Target: 'rates-prod' });
    for (const actions of [a.AlarmActions, a.OKActions, a.InsufficientDataActions])
      expect(actions!.map(render)).toEqual([topic('canary-owner')]);
  });

  it("dead-man's first steps name what on-call sees when runs were skipped for their credentials: the log line, its saved query, the owner alarm", () => {
    // Prepare: the names as the probe stack deploys them
    const probe = synth.json('McpCanary-probe-eu-west-1');
    const ownerAlarms = Object.values(probe.Resources)
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => String(r.Properties!.AlarmName));
    const queries = Object.values(probe.Resources)
      .filter((r) => r.Type === 'AWS::Logs::QueryDefinition')
      .map((r) => String(r.Properties!.Name));
    // Act
    const d = byName.get('McpCanary/rates-prod/dead-man')!.AlarmDescription;
    // Assess
    expect(d).toContain(`"${RUN_SKIPPED_MESSAGE}" lines there`);
    expect(d).toContain('reason "credentials" mean its credentials could not be read');
    const alarm = /region's (\S+) alarm says why/.exec(d)?.[1];
    expect(ownerAlarms).toContain(alarm);
    const query = /saved query (\S+)\)/.exec(d)?.[1];
    expect(queries).toContain(query);
  });

  it("follow a target's own schedule, regions and default quorum", () => {
    const c = byName.get('McpCanary/slow-one/critical')!;
    expect(c.Threshold).toBe(1);
    expect(expressionOf(c)).toBe(failingRegions(1, 1));
    expect(readMetrics(c)).toEqual(verdictReads('slow-one', 300));
    expect(byName.get('McpCanary/slow-one/dead-man')!.Threshold).toBe(1);
  });

  it('say what broke, the endpoint, the runbook and first steps, within the CloudWatch limit', () => {
    const c = byName.get('McpCanary/rates-prod/critical')!.AlarmDescription;
    expect(c).toContain('rates-prod has failed 3 time(s) in a row in at least 2 of 3 region(s): us-east-1, eu-west-1, ap-southeast-2');
    expect(c).toContain('or in that share of the regions that could judge it');
    expect(c).toContain('a region that cannot judge never resolves it');
    expect(c).toContain('Endpoint: https://rates.example.com/mcp');
    expect(c).toContain('Regions: us-east-1, eu-west-1, ap-southeast-2');
    expect(c).toContain('Runbook: https://runbooks.example.com/rates');
    expect(c).toContain('First steps: 1) ');
    expect(byName.get('McpCanary/docs/critical')!.AlarmDescription).toContain('Runbook: https://runbooks.example.com/mcp-canary');
    expect(byName.get('McpCanary/docs/dead-man')!.AlarmDescription).toContain('for the canary owner');
    expect(byName.get('McpCanary/docs/warning')!.AlarmDescription).toContain('inconclusive');
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
    const names = [...reordered.templates]
      .filter(([name]) => name.includes('-alarms-'))
      .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
      .map((a) => a.AlarmName)
      .sort();
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
      topics: {
        critical: Topic.fromTopicArn(stack, 'Pages', 'arn:aws:sns:us-east-1:111122223333:pages'),
        warning: Topic.fromTopicArn(stack, 'Tickets', 'arn:aws:sns:us-east-1:111122223333:tickets'),
        'dead-man': Topic.fromTopicArn(stack, 'Owner', 'arn:aws:sns:us-east-1:111122223333:owner'),
      },
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
      warning: { runsInARow: 3 },
      'dead-man': { runsInARow: 3 },
    });
    expect(alarmsOf(t as never).map((a) => a.AlarmName)).toEqual(['Snap/rates/critical', 'Snap/rates/warning', 'Snap/rates/dead-man']);
    expect(t).toMatchSnapshot();
  });
});
