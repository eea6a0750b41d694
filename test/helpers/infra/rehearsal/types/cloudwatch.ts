/** CloudWatch: alarms through PutMetricAlarm, the dashboard as moto's CloudFormation makes it, mute rules checked by name. */
import { DescribeAlarmsCommand, GetDashboardCommand, PutMetricAlarmCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { RehearsalError } from '../assembly.ts';
import { parseJson } from '../properties.ts';
import { generatedId, type CreatedByMoto, type CreatedByRehearsal, type NotCreatable, type ResourceContext } from './handler.ts';

/** AWS::CloudWatch::Alarm properties are PutMetricAlarm's parameters, name for name. */
const ALARM_PARAMETERS = [
  'AlarmName',
  'AlarmDescription',
  'ActionsEnabled',
  'AlarmActions',
  'OKActions',
  'InsufficientDataActions',
  'ComparisonOperator',
  'DatapointsToAlarm',
  'Dimensions',
  'EvaluateLowSampleCountPercentile',
  'EvaluationPeriods',
  'ExtendedStatistic',
  'MetricName',
  'Metrics',
  'Namespace',
  'Period',
  'Statistic',
  'Threshold',
  'ThresholdMetricId',
  'TreatMissingData',
  'Unit',
] as const;

export const alarm: CreatedByRehearsal = {
  by: 'api',
  api: 'cloudwatch:PutMetricAlarm',
  async create(ctx) {
    const input: Record<string, unknown> = {};
    for (const name of ALARM_PARAMETERS) {
      const v = await ctx.props.get(name);
      if (v !== undefined) input[name] = v;
    }
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
    input.AlarmName ??= generatedId(ctx.stackName, ctx.logicalId);
    await ctx.aws.cloudWatch.send(new PutMetricAlarmCommand(input as never));
    const [read] = (await ctx.aws.cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [String(input.AlarmName)] }))).MetricAlarms ?? [];
    if (!read)
      throw new RehearsalError(`${ctx.where}: PutMetricAlarm answered, but DescribeAlarms does not list ${String(input.AlarmName)}.`);
    for (const [name, expected] of Object.entries(input))
      ctx.findings.same(`${ctx.where} ${name}`, read[name as keyof MetricAlarm], expected);
    return { ref: String(input.AlarmName), attributes: { Arn: read.AlarmArn! } };
  },
};

export const dashboard: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, physicalId) {
    const name = (await ctx.props.get<string>('DashboardName')) ?? physicalId;
    ctx.findings.same(`${ctx.where} DashboardName`, physicalId, name);
    const read = await ctx.aws.cloudWatch.send(new GetDashboardCommand({ DashboardName: physicalId }));
    ctx.findings.same(`${ctx.where} DashboardBody`, parseJson(read.DashboardBody), parseJson(await ctx.props.need('DashboardBody')));
  },
};

export const alarmMuteRule: NotCreatable = {
  by: 'impossible',
  why: 'moto_server has no alarm mute rule API (PutAlarmMuteRule is unknown to it) and its CloudFormation skips the type',
  checkedBy:
    'test/integration/infra/maintenance.test.ts (the synthesized rules: schedule, duration, timezone and the alarms each one mutes)',
  async check(ctx: ResourceContext) {
    for (const p of ['Name', 'Description', 'Rule', 'StartDate', 'ExpireDate'])
      ctx.props.skip(p, 'not creatable in moto; maintenance.test.ts checks it');
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
    // The one part that can be checked here: every alarm a rule mutes is deployed, under that name.
    const targets = await ctx.props.need<{ AlarmNames?: string[] }>('MuteTargets');
    const names = targets.AlarmNames ?? [];
    for (let i = 0; i < names.length; i += 100) {
      const batch = names.slice(i, i + 100);
      const found = new Set(
        ((await ctx.aws.cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: batch, MaxRecords: 100 }))).MetricAlarms ?? []).map(
          (a) => a.AlarmName,
        ),
      );
      for (const n of batch) if (!found.has(n)) ctx.findings.add(`${ctx.where}: mutes alarm ${n}, which no stack deployed`);
    }
  },
};
