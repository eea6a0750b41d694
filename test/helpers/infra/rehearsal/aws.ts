/**
 * The AWS SDK v3 clients of one rehearsal, every one pointed at the same `moto_server`, one set per
 * region and made once. moto serves one account (its default); the partition is `aws`.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { IAMClient } from '@aws-sdk/client-iam';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { motoCredentials } from '../../moto.ts';

/** moto's one account: every ARN the stacks resolve to carries it. */
export const MOTO_ACCOUNT = '123456789012';
export const PARTITION = 'aws';
export const URL_SUFFIX = 'amazonaws.com';

export interface RegionClients {
  readonly region: string;
  readonly cloudFormation: CloudFormationClient;
  /** CloudFront is global: its API lives in us-east-1, whichever region asks. */
  readonly cloudFront: CloudFrontClient;
  readonly cloudWatch: CloudWatchClient;
  readonly logs: CloudWatchLogsClient;
  readonly dynamoDb: DynamoDBClient;
  readonly ec2: EC2Client;
  readonly events: EventBridgeClient;
  readonly iam: IAMClient;
  readonly lambda: LambdaClient;
  readonly s3: S3Client;
  readonly scheduler: SchedulerClient;
  readonly secretsManager: SecretsManagerClient;
  readonly sns: SNSClient;
  readonly sqs: SQSClient;
  readonly ssm: SSMClient;
}

export class Aws {
  readonly account = MOTO_ACCOUNT;
  readonly partition = PARTITION;
  private readonly regions = new Map<string, RegionClients>();

  constructor(readonly endpoint: string) {}

  at(region: string): RegionClients {
    let clients = this.regions.get(region);
    if (!clients) {
      // One attempt: a rehearsal against a local server that fails should say so at once, not after retries.
      const config = { region, endpoint: this.endpoint, credentials: motoCredentials, maxAttempts: 1 };
      clients = {
        region,
        cloudFormation: new CloudFormationClient(config),
        cloudFront: new CloudFrontClient({ ...config, region: 'us-east-1' }),
        cloudWatch: new CloudWatchClient(config),
        logs: new CloudWatchLogsClient(config),
        dynamoDb: new DynamoDBClient(config),
        ec2: new EC2Client(config),
        events: new EventBridgeClient(config),
        iam: new IAMClient(config),
        lambda: new LambdaClient(config),
        // Path-style: the bucket names carry dots and no DNS resolves bucket subdomains of 127.0.0.1.
        s3: new S3Client({ ...config, forcePathStyle: true }),
        scheduler: new SchedulerClient(config),
        secretsManager: new SecretsManagerClient(config),
        sns: new SNSClient(config),
        sqs: new SQSClient(config),
        ssm: new SSMClient(config),
      };
      this.regions.set(region, clients);
    }
    return clients;
  }

  destroy(): void {
    for (const clients of this.regions.values()) {
      for (const client of Object.values(clients)) if (typeof client === 'object') client.destroy();
    }
    this.regions.clear();
  }
}
