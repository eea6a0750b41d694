/**
 * EventBridge rules and CloudWatch Logs groups: moto's CloudFormation creates both; read back here. Saved
 * Logs Insights queries moto cannot hold at all.
 */
import { DescribeLogGroupsCommand, type LogGroup } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeRuleCommand, ListTargetsByRuleCommand } from '@aws-sdk/client-eventbridge';
import { RehearsalError } from '../assembly.ts';
import type { RegionClients } from '../aws.ts';
import { parseJson } from '../properties.ts';
import type { CreatedByMoto, NotCreatable } from './handler.ts';

async function logGroup(aws: RegionClients, name: string): Promise<LogGroup> {
  const groups = (await aws.logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name }))).logGroups ?? [];
  const group = groups.find((g) => g.logGroupName === name);
  if (!group) throw new RehearsalError(`log group ${name} is not in DescribeLogGroups although its stack created it.`);
  return group;
}

export const logGroupHandler: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, name) {
    const group = await logGroup(ctx.aws, name);
    const given = await ctx.props.get<string>('LogGroupName');
    if (given !== undefined) ctx.findings.same(`${ctx.where} LogGroupName`, group.logGroupName, given);
    const retention = await ctx.props.get<number>('RetentionInDays');
    if (retention !== undefined) ctx.findings.same(`${ctx.where} RetentionInDays`, group.retentionInDays, retention);
    const key = await ctx.props.get<string>('KmsKeyId');
    if (key !== undefined) ctx.findings.same(`${ctx.where} KmsKeyId`, group.kmsKeyId, key);
    const cls = await ctx.props.get<string>('LogGroupClass');
    if (cls !== undefined) ctx.findings.same(`${ctx.where} LogGroupClass`, group.logGroupClass, cls);
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
  },
  async attribute(aws, name, attribute) {
    // CloudFormation's Arn of a log group ends in `:*`, like DescribeLogGroups' `arn`.
    return attribute === 'Arn' ? (await logGroup(aws, name)).arn : undefined;
  },
  motoGetAtt: {
    Arn: {
      why: "moto 5.2's CloudFormation resolves a log group's Arn without the trailing `:*`",
      fromCloudFormation: (arn) => arn.replace(/:\*$/, ''),
    },
  },
};

interface RuleTarget {
  readonly Id: string;
  readonly [k: string]: unknown;
}

export const rule: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, name) {
    const read = await ctx.aws.events.send(new DescribeRuleCommand({ Name: name }));
    for (const p of ['Description', 'ScheduleExpression', 'State', 'RoleArn', 'EventBusName'] as const) {
      const expected = await ctx.props.get(p);
      if (expected !== undefined) ctx.findings.same(`${ctx.where} ${p}`, read[p], expected);
    }
    const pattern = await ctx.props.get('EventPattern');
    if (pattern !== undefined) ctx.findings.same(`${ctx.where} EventPattern`, parseJson(read.EventPattern), parseJson(pattern));
    const targets = (await ctx.props.get<RuleTarget[]>('Targets')) ?? [];
    const listed = (await ctx.aws.events.send(new ListTargetsByRuleCommand({ Rule: name }))).Targets ?? [];
    for (const t of targets) {
      const found = listed.find((l) => l.Id === t.Id);
      if (!found) ctx.findings.add(`${ctx.where}: target ${t.Id} is not listed by ListTargetsByRule`);
      else for (const [k, v] of Object.entries(t)) ctx.findings.same(`${ctx.where} target ${t.Id} ${k}`, found[k as keyof typeof found], v);
    }
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
  },
  async attribute(aws, name, attribute) {
    return attribute === 'Arn' ? (await aws.events.send(new DescribeRuleCommand({ Name: name }))).Arn : undefined;
  },
};

export const queryDefinition: NotCreatable = {
  by: 'impossible',
  why: 'moto_server answers PutQueryDefinition with HTTP 500 (not implemented) and its CloudFormation skips the type',
  checkedBy: 'test/unit/infra/run-ledger.test.ts (the saved queries: names, query strings and the run log group each one reads)',
  async check(ctx) {
    for (const p of ['Name', 'QueryString', 'QueryLanguage']) ctx.props.skip(p, 'not creatable in moto; run-ledger.test.ts checks it');
    // The one part that can be checked here: every log group a query reads is deployed, under that name.
    for (const name of (await ctx.props.get<string[]>('LogGroupNames')) ?? []) await logGroup(ctx.aws, name);
  },
};
