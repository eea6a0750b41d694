/** CloudWatch: alarms through PutMetricAlarm, the dashboard as moto's CloudFormation makes it, mute rules checked by name. */
import {
  DescribeAlarmsCommand,
  GetDashboardCommand,
  PutCompositeAlarmCommand,
  PutMetricAlarmCommand,
  type CloudWatchClient,
  type MetricAlarm,
} from '@aws-sdk/client-cloudwatch';
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

/** Which of `names` (alarm names or ARNs) no stack deployed, as DescribeAlarms sees it. */
async function undeployedAlarms(cloudWatch: CloudWatchClient, names: readonly string[]): Promise<string[]> {
  const byName = names.map((n) => n.replace(/^arn:[^:]+:cloudwatch:[^:]+:\d+:alarm:/, ''));
  const found = new Set<string>();
  for (let i = 0; i < byName.length; i += 100) {
    const out = await cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: byName.slice(i, i + 100), MaxRecords: 100 }));
    for (const a of [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])]) found.add(a.AlarmName!);
  }
  return byName.filter((n) => !found.has(n));
}

/** The alarms an AlarmRule reads: `ALARM("name")`, `OK(arn)`, `INSUFFICIENT_DATA(…)`. */
export function alarmsInRule(rule: string): string[] {
  return [...rule.matchAll(/\b(?:ALARM|OK|INSUFFICIENT_DATA)\(\s*(?:"([^"]+)"|([^)\s]+))\s*\)/g)].map((m) => m[1] ?? m[2]!);
}

export const compositeAlarm: CreatedByRehearsal = {
  by: 'api',
  api: 'cloudwatch:PutCompositeAlarm (sent to moto as PutMetricAlarm)',
  async create(ctx) {
    const input = {
      AlarmName: await ctx.props.need<string>('AlarmName'),
      AlarmRule: await ctx.props.need<string>('AlarmRule'),
      AlarmDescription: await ctx.props.get<string>('AlarmDescription'),
      ActionsEnabled: await ctx.props.get<boolean>('ActionsEnabled'),
      AlarmActions: await ctx.props.get<string[]>('AlarmActions'),
      OKActions: await ctx.props.get<string[]>('OKActions'),
      InsufficientDataActions: await ctx.props.get<string[]>('InsufficientDataActions'),
      ActionsSuppressor: await ctx.props.get<string>('ActionsSuppressor'),
      ActionsSuppressorWaitPeriod: await ctx.props.get<number>('ActionsSuppressorWaitPeriod'),
      ActionsSuppressorExtensionPeriod: await ctx.props.get<number>('ActionsSuppressorExtensionPeriod'),
    };
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
    // CloudWatch refuses a composite whose rule or suppressor names an alarm that does not exist.
    const missing = await undeployedAlarms(ctx.aws.cloudWatch, [
      ...alarmsInRule(input.AlarmRule),
      ...(input.ActionsSuppressor ? [input.ActionsSuppressor] : []),
    ]);
    if (missing.length > 0)
      throw new RehearsalError(
        `CloudWatch refuses ${ctx.where}: its rule or ActionsSuppressor names ${missing.join(', ')}, which no stack deployed (yet).`,
      );
    if (alarmsInRule(input.AlarmRule).length === 0) ctx.findings.add(`${ctx.where}: AlarmRule ${input.AlarmRule} reads no alarm`);
    const put = new PutCompositeAlarmCommand(input);
    // moto 5.2 has no PutCompositeAlarm (it answers an HTML 404); its PutMetricAlarm is the one that
    // stores composites, and keeps their name, description and actions. It drops AlarmRule and the
    // ActionsSuppressor settings (its JSON parsing reads PutMetricAlarm's shape): checked above against
    // what is deployed, and in burn.test.ts / timing.test.ts for their meaning.
    put.middlewareStack.add(
      (next) => async (args) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        headers['x-amz-target'] = headers['x-amz-target']!.replace('PutCompositeAlarm', 'PutMetricAlarm');
        return next(args);
      },
      { step: 'build', name: 'motoCompositeAsMetricAlarm' },
    );
    await ctx.aws.cloudWatch.send(put);
    const out = await ctx.aws.cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [input.AlarmName] }));
    const read = [...(out.CompositeAlarms ?? []), ...(out.MetricAlarms ?? [])][0];
    if (!read) throw new RehearsalError(`${ctx.where}: PutCompositeAlarm answered, but DescribeAlarms does not list ${input.AlarmName}.`);
    for (const p of ['AlarmName', 'AlarmDescription', 'ActionsEnabled', 'AlarmActions', 'OKActions', 'InsufficientDataActions'] as const)
      if (input[p] !== undefined) ctx.findings.same(`${ctx.where} ${p}`, read[p], input[p]);
    return { ref: input.AlarmName, attributes: { Arn: read.AlarmArn! } };
  },
};
