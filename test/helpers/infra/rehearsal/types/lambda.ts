/**
 * Lambda. moto's CloudFormation creates functions (their code read from the assets bucket) and
 * permissions, read back here; it skips event-invoke configs, set through PutFunctionEventInvokeConfig.
 */
import { createHash } from 'node:crypto';
import { DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeSecurityGroupsCommand, DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import {
  GetFunctionConcurrencyCommand,
  GetFunctionConfigurationCommand,
  GetFunctionEventInvokeConfigCommand,
  GetPolicyCommand,
  PutFunctionEventInvokeConfigCommand,
  type FunctionConfiguration,
} from '@aws-sdk/client-lambda';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { RegionClients } from '../aws.ts';
import { parseJson } from '../properties.ts';
import { generatedId, type CreatedByMoto, type CreatedByRehearsal, type ResourceContext } from './handler.ts';

/** Function properties GetFunctionConfiguration answers under the same name and shape. */
const SAME_NAME = ['Description', 'FunctionName', 'Handler', 'MemorySize', 'Role', 'Runtime', 'Timeout'];

export async function functionConfiguration(aws: RegionClients, name: string): Promise<FunctionConfiguration> {
  return aws.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
}

/** The code object a function was created from, as bytes, and the sha256 Lambda reports for it. */
export async function codeObject(
  aws: RegionClients,
  code: { S3Bucket: string; S3Key: string },
): Promise<{ bytes: Uint8Array; sha256: string }> {
  const out = await aws.s3.send(new GetObjectCommand({ Bucket: code.S3Bucket, Key: code.S3Key }));
  const bytes = await out.Body!.transformToByteArray();
  return { bytes, sha256: createHash('sha256').update(bytes).digest('base64') };
}

export const lambdaFunction: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, name) {
    const config = await functionConfiguration(ctx.aws, name);
    for (const p of SAME_NAME) {
      const expected = await ctx.props.get(p);
      if (expected !== undefined) ctx.findings.same(`${ctx.where} ${p}`, config[p as keyof FunctionConfiguration], expected);
    }
    const env = await ctx.props.get<{ Variables?: Record<string, string> }>('Environment');
    if (env !== undefined) ctx.findings.same(`${ctx.where} Environment`, config.Environment?.Variables ?? {}, env.Variables ?? {});
    const reserved = await ctx.props.get<number>('ReservedConcurrentExecutions');
    if (reserved !== undefined) {
      const read = await ctx.aws.lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: name }));
      ctx.findings.same(`${ctx.where} ReservedConcurrentExecutions`, read.ReservedConcurrentExecutions, reserved);
    }
    const vpc = await ctx.props.get<{ SubnetIds: string[]; SecurityGroupIds: string[] }>('VpcConfig');
    if (vpc !== undefined) {
      ctx.findings.same(`${ctx.where} VpcConfig SubnetIds`, config.VpcConfig?.SubnetIds, vpc.SubnetIds);
      ctx.findings.same(`${ctx.where} VpcConfig SecurityGroupIds`, config.VpcConfig?.SecurityGroupIds, vpc.SecurityGroupIds);
      await checkVpcPlacement(ctx, vpc);
    }
    ctx.props.skip(
      'Architectures',
      "moto 5.2's CloudFormation drops it (creates x86_64); probe-region.test.ts and home.test.ts check arm64",
    );
    const code = await ctx.props.need<{ S3Bucket: string; S3Key: string }>('Code');
    const { sha256 } = await codeObject(ctx.aws, code);
    ctx.findings.same(`${ctx.where} Code (sha256 of s3://${code.S3Bucket}/${code.S3Key})`, config.CodeSha256, sha256);
    // moto's Lambda keeps no LoggingConfig (GetFunctionConfiguration omits it; probe-region.test.ts checks
    // the template's): what can be checked is that the log group it names is deployed.
    const logging = await ctx.props.get<{ LogGroup?: string }>('LoggingConfig');
    if (logging?.LogGroup) {
      const groups = (await ctx.aws.logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: logging.LogGroup }))).logGroups ?? [];
      if (!groups.some((g) => g.logGroupName === logging.LogGroup))
        ctx.findings.add(`${ctx.where}: logs to ${logging.LogGroup}, which no stack deployed`);
    }
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
  },
  async attribute(aws, name, attribute) {
    return attribute === 'Arn' ? (await functionConfiguration(aws, name)).FunctionArn : undefined;
  },
};

/**
 * Lambda refuses subnets and security groups that do not exist, or that lie in different VPCs; moto's
 * Lambda checks neither, so the rehearsal asks EC2.
 */
async function checkVpcPlacement(ctx: ResourceContext, vpc: { SubnetIds: string[]; SecurityGroupIds: string[] }): Promise<void> {
  const subnets = (await ctx.aws.ec2.send(new DescribeSubnetsCommand({ SubnetIds: vpc.SubnetIds }))).Subnets ?? [];
  const groups = (await ctx.aws.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: vpc.SecurityGroupIds }))).SecurityGroups ?? [];
  const vpcs = new Set([...subnets.map((s) => s.VpcId), ...groups.map((g) => g.VpcId)]);
  if (subnets.length !== vpc.SubnetIds.length || groups.length !== vpc.SecurityGroupIds.length || vpcs.size !== 1)
    ctx.findings.add(
      `${ctx.where}: VpcConfig names subnets ${vpc.SubnetIds.join(', ')} and groups ${vpc.SecurityGroupIds.join(', ')}; EC2 has ${subnets.length} and ${groups.length} of them, in VPCs ${[...vpcs].join(', ')}`,
    );
}

interface PolicyStatement {
  Action: string;
  Principal: { Service?: string; AWS?: string } | string;
  Condition?: { ArnLike?: Record<string, string>; StringEquals?: Record<string, string> };
}

export const permission: CreatedByMoto = {
  by: 'moto',
  async verify(ctx) {
    const fn = await ctx.props.need<string>('FunctionName');
    const policy = parseJson((await ctx.aws.lambda.send(new GetPolicyCommand({ FunctionName: fn }))).Policy) as {
      Statement: PolicyStatement[];
    };
    const action = await ctx.props.need<string>('Action');
    const principal = await ctx.props.need<string>('Principal');
    const sourceArn = await ctx.props.get<string>('SourceArn');
    const sourceAccount = await ctx.props.get<string>('SourceAccount');
    const match = policy.Statement.some(
      (s) =>
        s.Action === action &&
        (typeof s.Principal === 'string' ? s.Principal : (s.Principal.Service ?? s.Principal.AWS)) === principal &&
        (sourceArn === undefined || s.Condition?.ArnLike?.['AWS:SourceArn'] === sourceArn) &&
        (sourceAccount === undefined || s.Condition?.StringEquals?.['AWS:SourceAccount'] === sourceAccount),
    );
    if (!match)
      ctx.findings.add(
        `${ctx.where}: ${fn}'s policy has no statement letting ${principal} ${action} from ${sourceArn ?? 'anywhere'}: ${JSON.stringify(policy)}`,
      );
  },
};

export const eventInvokeConfig: CreatedByRehearsal = {
  by: 'api',
  api: 'lambda:PutFunctionEventInvokeConfig',
  async create(ctx) {
    const input = {
      FunctionName: await ctx.props.need<string>('FunctionName'),
      Qualifier: await ctx.props.get<string>('Qualifier'),
      MaximumRetryAttempts: await ctx.props.get<number>('MaximumRetryAttempts'),
      MaximumEventAgeInSeconds: await ctx.props.get<number>('MaximumEventAgeInSeconds'),
      DestinationConfig: await ctx.props.get<object>('DestinationConfig'),
    };
    await ctx.aws.lambda.send(new PutFunctionEventInvokeConfigCommand(input));
    const read = await ctx.aws.lambda.send(
      new GetFunctionEventInvokeConfigCommand({ FunctionName: input.FunctionName, Qualifier: input.Qualifier }),
    );
    for (const p of ['MaximumRetryAttempts', 'MaximumEventAgeInSeconds', 'DestinationConfig'] as const) {
      if (input[p] !== undefined) ctx.findings.same(`${ctx.where} ${p}`, read[p], input[p]);
    }
    return { ref: generatedId(ctx.stackName, ctx.logicalId) };
  },
};
