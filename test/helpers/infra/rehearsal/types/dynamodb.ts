/** DynamoDB tables (an idempotency store, say): created by moto's CloudFormation, read back with DescribeTable. */
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateContinuousBackupsCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { RegionClients } from '../aws.ts';
import type { CreatedByMoto } from './handler.ts';

const dynamo = (aws: RegionClients) => aws.dynamoDb;

export const table: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, name) {
    const read = (await dynamo(ctx.aws).send(new DescribeTableCommand({ TableName: name }))).Table!;
    const given = await ctx.props.get<string>('TableName');
    if (given !== undefined) ctx.findings.same(`${ctx.where} TableName`, read.TableName, given);
    ctx.findings.same(`${ctx.where} KeySchema`, read.KeySchema, await ctx.props.need('KeySchema'));
    const defs = await ctx.props.get<Array<{ AttributeName: string }>>('AttributeDefinitions');
    if (defs !== undefined) {
      const byName = (a: Array<{ AttributeName?: string }>) =>
        [...a].sort((x, y) => String(x.AttributeName).localeCompare(String(y.AttributeName)));
      ctx.findings.same(`${ctx.where} AttributeDefinitions`, byName(read.AttributeDefinitions ?? []), byName(defs));
    }
    const billing = await ctx.props.get<string>('BillingMode');
    if (billing !== undefined)
      ctx.findings.same(`${ctx.where} BillingMode`, read.BillingModeSummary?.BillingMode ?? 'PROVISIONED', billing);
    const throughput = await ctx.props.get<{ ReadCapacityUnits: number; WriteCapacityUnits: number }>('ProvisionedThroughput');
    if (throughput !== undefined) {
      const { ReadCapacityUnits, WriteCapacityUnits } = read.ProvisionedThroughput ?? {};
      ctx.findings.same(`${ctx.where} ProvisionedThroughput`, { ReadCapacityUnits, WriteCapacityUnits }, throughput);
    }
    // moto 5.2's CloudFormation drops TimeToLiveSpecification and PointInTimeRecoverySpecification: the
    // rehearsal applies them with UpdateTimeToLive / UpdateContinuousBackups, as CloudFormation would.
    const ttl = await ctx.props.get<{ AttributeName: string; Enabled: boolean }>('TimeToLiveSpecification');
    if (ttl !== undefined) {
      await dynamo(ctx.aws).send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: ttl }));
      const d = (await dynamo(ctx.aws).send(new DescribeTimeToLiveCommand({ TableName: name }))).TimeToLiveDescription;
      ctx.findings.same(
        `${ctx.where} TimeToLiveSpecification`,
        { AttributeName: d?.AttributeName, Enabled: d?.TimeToLiveStatus === 'ENABLED' },
        ttl,
      );
    }
    const pitr = await ctx.props.get<{ PointInTimeRecoveryEnabled: boolean }>('PointInTimeRecoverySpecification');
    if (pitr !== undefined) {
      await dynamo(ctx.aws).send(new UpdateContinuousBackupsCommand({ TableName: name, PointInTimeRecoverySpecification: pitr }));
      const b = (await dynamo(ctx.aws).send(new DescribeContinuousBackupsCommand({ TableName: name }))).ContinuousBackupsDescription;
      ctx.findings.same(
        `${ctx.where} PointInTimeRecoverySpecification`,
        b?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus === 'ENABLED',
        pitr.PointInTimeRecoveryEnabled,
      );
    }
    // moto 5.2 drops SSESpecification from CloudFormation and ignores it in UpdateTable (no SSEDescription
    // either way): a table moto reports encrypted is compared, otherwise test/unit/infra/run-ledger.test.ts holds it.
    const sse = await ctx.props.get<{ SSEEnabled: boolean }>('SSESpecification');
    if (sse !== undefined && read.SSEDescription !== undefined)
      ctx.findings.same(`${ctx.where} SSESpecification`, read.SSEDescription.Status === 'ENABLED', sse.SSEEnabled);
    const protection = await ctx.props.get<boolean>('DeletionProtectionEnabled');
    if (protection !== undefined)
      ctx.findings.same(`${ctx.where} DeletionProtectionEnabled`, read.DeletionProtectionEnabled ?? false, protection);
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
  },
  async attribute(aws, name, attribute) {
    const read = (await dynamo(aws).send(new DescribeTableCommand({ TableName: name }))).Table!;
    return attribute === 'Arn' ? read.TableArn : attribute === 'StreamArn' ? read.LatestStreamArn : undefined;
  },
};
