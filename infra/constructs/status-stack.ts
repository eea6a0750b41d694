/**
 * The status page (only when the config has `statusPage`), in the home region: a private bucket, a
 * function that writes `status.json` and `index.html` into it every 5 minutes, its schedule, and — when
 * `statusPage.public` — CloudFront in front of the still-private bucket through Origin Access Control.
 * The bucket is never public: no website hosting, no public ACL, no public policy.
 *
 * Why every 5 minutes: a person reading a status page wants minutes, not seconds, and the alarms page
 * on-call long before anyone reads it. Each run reads the targets' history (CloudWatch GetMetricData,
 * billed per metric requested) and writes two objects; at 5 minutes that is 8,640 runs a month (about
 * $0.09 of PUTs, a few cents of Lambda, and GetMetricData per shown target), where 1 minute would be
 * five times each for a page that changes no faster than the alarms' N-minute rule.
 */
import { ArnFormat, Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { CfnSchedule } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { STATUS_EVERY_MINUTES, StatusEnvVar, type StatusPage, type StatusPayload } from '../../functions/base/config/schema/status-page.ts';
import type { FleetNames } from '../plan/names.ts';
import { CanaryFunction, canaryLogGroup } from './canary-function.ts';
import { ownerAlarm } from './owner-alarm.ts';
import { acknowledgeWildcardResources } from './acknowledge.ts';
import { acknowledgeStatusFindings } from './status-nag.ts';
import { topicArn } from './topics.ts';

export const STATUS_SCHEDULE = `rate(${STATUS_EVERY_MINUTES} minutes)`;
/** An hourly run also reads the 13 days of 1-minute points behind the last two (gather.ts): room for it. */
export const STATUS_TIMEOUT = Duration.minutes(4);
export const STATUS_MEMORY_MB = 512;
/** The objects the function writes, and nothing else it may write. */
export const STATUS_KEYS = ['index.html', 'status.json'] as const;
/** The page loads nothing: its styles are inline, it has no script, image or frame. */
export const STATUS_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface StatusStackProps extends StackProps {
  readonly names: FleetNames;
  readonly page: StatusPage;
  readonly payload: StatusPayload;
  /** @default - one month */
  readonly logRetention?: RetentionDays;
}

export class StatusStack extends Stack {
  readonly bucket: Bucket;
  readonly function: CanaryFunction;
  readonly distribution: Distribution | undefined;

  constructor(scope: Construct, id: string, props: StatusStackProps) {
    super(scope, id, props);
    const { names, page } = props;
    const privateBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      minimumTLSVersion: 1.2,
    };
    const accessLogs = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket = new Bucket(this, 'Page', {
      ...privateBucket,
      // Kept on stack deletion like any bucket with content: the page is rewritten by the next deploy's runs.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    logAccessTo(this.bucket, accessLogs, 'page/');

    const logGroup = canaryLogGroup(this, 'Logs', names.statusLogGroup, props.logRetention);
    const runLogs = runLogReads(this, names, props.payload);
    const role = new Role(this, 'Role', {
      description: 'mcp-canary status: reads the fleet Verdict metrics and run logs, writes the status page objects.',
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        status: new PolicyDocument({
          statements: [
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [logGroup.logGroupArn],
            }),
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['s3:PutObject'],
              resources: STATUS_KEYS.map((key) => this.bucket.arnForObjects(key)),
            }),
            ...historyReads(),
            ...(runLogs.length
              ? [new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:FilterLogEvents'], resources: runLogs })]
              : []),
          ],
        }),
      },
    });

    this.function = new CanaryFunction(this, 'Function', {
      handlerName: 'status',
      functionName: names.statusFunction,
      description: `mcp-canary: every ${STATUS_EVERY_MINUTES} minutes, writes the status page (index.html, status.json) from the fleet history.`,
      memorySize: STATUS_MEMORY_MB,
      timeout: STATUS_TIMEOUT,
      role,
      logGroup,
      // The next run, 5 minutes on, writes the whole page again: a retry would only race it.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(5),
      environment: { [StatusEnvVar.bucket]: this.bucket.bucketName },
    });

    const schedulerRole = new Role(this, 'ScheduleRole', {
      description: 'EventBridge Scheduler invokes the mcp-canary status function.',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } } }),
      inlinePolicies: {
        invoke: new PolicyDocument({
          statements: [
            new PolicyStatement({ effect: Effect.ALLOW, actions: ['lambda:InvokeFunction'], resources: [this.function.functionArn] }),
          ],
        }),
      },
    });
    new CfnSchedule(this, 'Schedule', {
      name: names.statusFunction,
      description: `mcp-canary ${names.fleet}: writes the status page ${STATUS_SCHEDULE}.`,
      scheduleExpression: STATUS_SCHEDULE,
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: this.function.functionArn,
        roleArn: schedulerRole.roleArn,
        // Display names, counts and maintenance times only (functions/base/config/schema/status-page.ts): no URL, no header.
        input: JSON.stringify(props.payload),
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 300 },
      },
    });

    ownerAlarm(this, 'Errors', {
      alarmName: names.canaryAlarm('status-errors'),
      description: `The mcp-canary status function failed: the status page may be stale (paging is not affected). For the canary owner. Look at ${names.statusLogGroup}.`,
      metric: this.function.metricErrors({ period: Duration.minutes(15), statistic: 'Sum' }),
      ownerTopicArn: topicArn(this, names.topic('canary-owner')),
    });

    this.distribution = page.public ? publicDistribution(this, this.bucket, page) : undefined;
    new CfnOutput(this, 'BucketName', { value: this.bucket.bucketName, description: 'the status page objects (private)' });
    if (this.distribution)
      new CfnOutput(this, 'PageDomain', {
        value: page.domainName ?? this.distribution.distributionDomainName,
        description: 'the public status page (point your DNS name at the distribution)',
      });
    acknowledgeWildcardResources(
      role,
      runLogs,
      `The only wildcard is the ":*" log-stream suffix of the fleet's run log group ${names.runLogGroup} in each probe region of a shown target, the form FilterLogEvents authorizes: incidents' failure classes; no other log group is readable.`,
    );
    acknowledgeStatusFindings({
      role,
      distribution: this.distribution,
      customDomain: page.domainName !== undefined,
    });
  }
}

/**
 * What the gatherer calls (functions/lambdas/status/gather.ts reads the Verdict metric only, no alarm history):
 * GetMetricData, which IAM authorizes on no resource narrower than "*".
 */
function historyReads(): PolicyStatement[] {
  return [new PolicyStatement({ effect: Effect.ALLOW, actions: ['cloudwatch:GetMetricData'], resources: ['*'] })];
}

/**
 * FilterLogEvents on the fleet's run log group in each probe region of a shown target, and nothing else:
 * an incident's failure class is in the run records logged there (functions/lambdas/status/causes.ts).
 */
function runLogReads(stack: Stack, names: FleetNames, payload: StatusPayload): string[] {
  const regions = [...new Set(payload.targets.flatMap((t) => t.probeRegions ?? []))].sort();
  return regions.flatMap((region) => {
    const arn = stack.formatArn({
      service: 'logs',
      region,
      resource: 'log-group',
      resourceName: names.runLogGroup,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    return [arn, `${arn}:*`];
  });
}

/**
 * Server access logging by bucket policy, not ACL: CDK's `serverAccessLogsBucket` grants the log delivery
 * group an ACL unless an app-wide feature flag says otherwise, and this stack keeps ACLs off everywhere
 * (BucketOwnerEnforced). The policy is AWS's recommended one: the logging service, for this bucket and account.
 */
function logAccessTo(bucket: Bucket, logs: Bucket, prefix: string): void {
  (bucket.node.defaultChild as CfnBucket).loggingConfiguration = { destinationBucketName: logs.bucketName, logFilePrefix: prefix };
  logs.addToResourcePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      principals: [new ServicePrincipal('logging.s3.amazonaws.com')],
      actions: ['s3:PutObject'],
      resources: [logs.arnForObjects(`${prefix}*`)],
      conditions: { ArnLike: { 'aws:SourceArn': bucket.bucketArn }, StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
    }),
  );
}

function publicDistribution(stack: Stack, bucket: Bucket, page: StatusPage): Distribution {
  const headers = new ResponseHeadersPolicy(stack, 'SecurityHeaders', {
    comment: 'mcp-canary status page: strict security headers',
    securityHeadersBehavior: {
      contentSecurityPolicy: { contentSecurityPolicy: STATUS_CSP, override: true },
      strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
    },
  });
  return new Distribution(stack, 'Distribution', {
    comment: 'mcp-canary status page',
    defaultRootObject: 'index.html',
    defaultBehavior: {
      // Origin Access Control: CloudFront signs its reads; the bucket policy allows this distribution only.
      origin: S3BucketOrigin.withOriginAccessControl(bucket),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: headers,
    },
    httpVersion: HttpVersion.HTTP2_AND_3,
    priceClass: PriceClass.PRICE_CLASS_100,
    minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
    ...(page.domainName && page.certificateArn
      ? { domainNames: [page.domainName], certificate: Certificate.fromCertificateArn(stack, 'Certificate', page.certificateArn) }
      : {}),
  });
}
