/**
 * The status Lambda: invoked by its schedule every few minutes with the payload (display names, counts,
 * maintenance; functions/base/config/schema/status-page.ts) as its input. Thin: clients at module scope, the work in
 * `publishStatus`. A throw (S3 still failing after the SDK's retries) is the function's Errors alarm for
 * the canary owner; the next scheduled run writes the page again.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { S3Client } from '@aws-sdk/client-s3';
import { required } from '../../base/config/env/env-utils.ts';
import { StatusEnvVar } from '../../base/config/schema/status-page.ts';
import type { CauseCache } from './causes.ts';
import type { TierCache } from './gather.ts';
import { publishStatus, WRITE_ATTEMPTS, type StatusResult } from './publish.ts';

const bucket = required(process.env, StatusEnvVar.bucket, 'the name of the status page bucket');
// Standard retry mode: 503 SlowDown, 500 and throttling are retried with backoff and jitter.
const s3 = new S3Client({ maxAttempts: WRITE_ATTEMPTS, retryMode: 'standard' });
const cloudwatch = new CloudWatchClient({});
const cache: TierCache = new Map();
const causes: CauseCache = new Map();
// One client per probe region, made on first use: the run log groups live where the runs ran.
const logClients = new Map<string, CloudWatchLogsClient>();
const logs = (region: string) => logClients.get(region) ?? logClients.set(region, new CloudWatchLogsClient({ region })).get(region)!;

export async function handler(event: unknown): Promise<StatusResult> {
  const result = await publishStatus(event, { s3, cloudwatch, bucket, now: Date.now(), cache, logs, causes });
  process.stdout.write(`${JSON.stringify({ message: 'mcp-canary status', ...result })}\n`);
  return result;
}
