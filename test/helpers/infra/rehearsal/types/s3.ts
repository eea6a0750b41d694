/**
 * S3: moto's CloudFormation creates buckets but applies only their encryption (and tags); the rest of
 * a bucket's configuration is applied here through S3's own API, as CloudFormation would, and read back.
 * It skips bucket policies, put with PutBucketPolicy.
 */
import {
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketLoggingCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketLoggingCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketPolicyCommand,
  PutPublicAccessBlockCommand,
  type LifecycleRule,
} from '@aws-sdk/client-s3';
import { RehearsalError } from '../assembly.ts';
import { PARTITION, URL_SUFFIX } from '../aws.ts';
import { parseJson } from '../properties.ts';
import { generatedId, type CreatedByMoto, type CreatedByRehearsal } from './handler.ts';

interface CfnLifecycleRule {
  readonly Id?: string;
  readonly Status: 'Enabled' | 'Disabled';
  readonly Prefix?: string;
  readonly ExpirationInDays?: number;
  readonly AbortIncompleteMultipartUpload?: { DaysAfterInitiation: number };
  readonly [other: string]: unknown;
}

/** CloudFormation's lifecycle rule in the API's shape; a field the rehearsal does not translate fails it. */
function lifecycleRule(r: CfnLifecycleRule, where: string): LifecycleRule {
  const known = new Set(['Id', 'Status', 'Prefix', 'ExpirationInDays', 'AbortIncompleteMultipartUpload']);
  const unknown = Object.keys(r).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new RehearsalError(`${where}: lifecycle rule fields ${unknown.join(', ')} are not translated; add them in types/s3.ts.`);
  return {
    ID: r.Id,
    Status: r.Status,
    Filter: { Prefix: r.Prefix ?? '' },
    ...(r.ExpirationInDays !== undefined ? { Expiration: { Days: r.ExpirationInDays } } : {}),
    ...(r.AbortIncompleteMultipartUpload ? { AbortIncompleteMultipartUpload: r.AbortIncompleteMultipartUpload } : {}),
  };
}

export const bucket: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, name) {
    const s3 = ctx.aws.s3;
    await s3.send(new HeadBucketCommand({ Bucket: name }));
    const given = await ctx.props.get<string>('BucketName');
    if (given !== undefined) ctx.findings.same(`${ctx.where} BucketName`, name, given);

    const encryption = await ctx.props.get<{ ServerSideEncryptionConfiguration: Array<Record<string, unknown>> }>('BucketEncryption');
    if (encryption) {
      const read = (await s3.send(new GetBucketEncryptionCommand({ Bucket: name }))).ServerSideEncryptionConfiguration?.Rules ?? [];
      // BucketKeyEnabled left out is false, as S3 answers it.
      ctx.findings.same(
        `${ctx.where} BucketEncryption`,
        read.map((r) => ({
          ServerSideEncryptionByDefault: r.ApplyServerSideEncryptionByDefault,
          BucketKeyEnabled: r.BucketKeyEnabled ?? false,
        })),
        encryption.ServerSideEncryptionConfiguration.map((r) => ({ BucketKeyEnabled: false, ...r })),
      );
    }
    // moto 5.2's CloudFormation drops every bucket property but encryption and tags: applied here.
    const block = await ctx.props.get<Record<string, boolean>>('PublicAccessBlockConfiguration');
    if (block) {
      await s3.send(new PutPublicAccessBlockCommand({ Bucket: name, PublicAccessBlockConfiguration: block }));
      const read = (await s3.send(new GetPublicAccessBlockCommand({ Bucket: name }))).PublicAccessBlockConfiguration;
      ctx.findings.same(`${ctx.where} PublicAccessBlockConfiguration`, read, block);
    }
    const ownership = await ctx.props.get<{ Rules: Array<{ ObjectOwnership: string }> }>('OwnershipControls');
    if (ownership) {
      await s3.send(new PutBucketOwnershipControlsCommand({ Bucket: name, OwnershipControls: ownership as never }));
      const read = (await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name }))).OwnershipControls;
      ctx.findings.same(`${ctx.where} OwnershipControls`, read, ownership);
    }
    const lifecycle = await ctx.props.get<{ Rules: CfnLifecycleRule[] }>('LifecycleConfiguration');
    if (lifecycle) {
      const rules = lifecycle.Rules.map((r) => lifecycleRule(r, ctx.where));
      await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: name, LifecycleConfiguration: { Rules: rules } }));
      const read = (await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name }))).Rules ?? [];
      ctx.findings.same(
        `${ctx.where} LifecycleConfiguration`,
        read.map((r) => ({ Status: r.Status, Expiration: r.Expiration?.Days, Prefix: r.Filter?.Prefix ?? r.Prefix ?? '' })),
        rules.map((r) => ({ Status: r.Status, Expiration: r.Expiration?.Days, Prefix: r.Filter?.Prefix })),
      );
    }
    const logging = await ctx.props.get<{ DestinationBucketName?: string; LogFilePrefix?: string }>('LoggingConfiguration');
    if (logging) {
      // moto 5.2 refuses PutBucketLogging until the target bucket's policy lets logging.s3.amazonaws.com
      // write; S3 does not check that at this call, and CloudFormation (as the CDK orders it) puts that
      // policy after this bucket, since the policy names this bucket's ARN. So: once the stack is up.
      ctx.later(async () => {
        await s3.send(
          new PutBucketLoggingCommand({
            Bucket: name,
            BucketLoggingStatus: {
              LoggingEnabled: { TargetBucket: logging.DestinationBucketName, TargetPrefix: logging.LogFilePrefix ?? '' },
            },
          }),
        );
        const read = (await s3.send(new GetBucketLoggingCommand({ Bucket: name }))).LoggingEnabled;
        ctx.findings.same(
          `${ctx.where} LoggingConfiguration`,
          { DestinationBucketName: read?.TargetBucket, LogFilePrefix: read?.TargetPrefix },
          { DestinationBucketName: logging.DestinationBucketName, LogFilePrefix: logging.LogFilePrefix ?? '' },
        );
      });
    }
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
  },
  async attribute(aws, name, attribute) {
    if (attribute === 'Arn') return `arn:${PARTITION}:s3:::${name}`;
    if (attribute === 'DomainName') return `${name}.s3.${URL_SUFFIX}`;
    if (attribute === 'RegionalDomainName') return `${name}.s3.${aws.region}.${URL_SUFFIX}`;
    return undefined;
  },
};

export const bucketPolicy: CreatedByRehearsal = {
  by: 'api',
  api: 's3:PutBucketPolicy',
  async create(ctx) {
    const name = await ctx.props.need<string>('Bucket');
    const document = await ctx.props.need<object>('PolicyDocument');
    await ctx.aws.s3.send(new PutBucketPolicyCommand({ Bucket: name, Policy: JSON.stringify(document) }));
    const read = (await ctx.aws.s3.send(new GetBucketPolicyCommand({ Bucket: name }))).Policy;
    ctx.findings.same(`${ctx.where} PolicyDocument`, parseJson(read), document);
    return { ref: generatedId(ctx.stackName, ctx.logicalId) };
  },
};
