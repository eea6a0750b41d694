/** EventBridge Scheduler: moto's CloudFormation skips groups and schedules; CreateScheduleGroup and CreateSchedule stand in. */
import { CreateScheduleCommand, CreateScheduleGroupCommand, GetScheduleCommand, GetScheduleGroupCommand } from '@aws-sdk/client-scheduler';
import type { CreatedByRehearsal } from './handler.ts';

export const scheduleGroup: CreatedByRehearsal = {
  by: 'api',
  api: 'scheduler:CreateScheduleGroup',
  async create(ctx) {
    const name = await ctx.props.need<string>('Name');
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
    await ctx.aws.scheduler.send(new CreateScheduleGroupCommand({ Name: name }));
    const read = await ctx.aws.scheduler.send(new GetScheduleGroupCommand({ Name: name }));
    return { ref: name, attributes: { Arn: read.Arn! } };
  },
};

/** AWS::Scheduler::Schedule properties are CreateSchedule's parameters, name for name. */
const SCHEDULE_PARAMETERS = [
  'Name',
  'GroupName',
  'Description',
  'ScheduleExpression',
  'ScheduleExpressionTimezone',
  'FlexibleTimeWindow',
  'Target',
  'State',
  'StartDate',
  'EndDate',
  'KmsKeyArn',
] as const;

export const schedule: CreatedByRehearsal = {
  by: 'api',
  api: 'scheduler:CreateSchedule',
  async create(ctx) {
    const input: Record<string, unknown> = {};
    for (const p of SCHEDULE_PARAMETERS) {
      const v = await ctx.props.get(p);
      if (v !== undefined) input[p] = p === 'StartDate' || p === 'EndDate' ? new Date(String(v)) : v;
    }
    await ctx.aws.scheduler.send(new CreateScheduleCommand(input as never));
    const read = await ctx.aws.scheduler.send(
      new GetScheduleCommand({ Name: String(input.Name), GroupName: input.GroupName as string | undefined }),
    );
    for (const p of ['ScheduleExpression', 'FlexibleTimeWindow', 'Target', 'State', 'Description'] as const) {
      if (input[p] !== undefined) ctx.findings.same(`${ctx.where} ${p}`, read[p], input[p]);
    }
    return { ref: String(input.Name), attributes: { Arn: read.Arn! } };
  },
};
