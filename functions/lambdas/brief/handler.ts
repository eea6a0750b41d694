/**
 * The brief Lambda: invoked by an EventBridge rule on this fleet's alarm state changes. Thin: the
 * environment and SDK clients are set up once per container; `briefAlarmChange` does the work. A throw
 * (SNS unreachable) is retried by Lambda and then dead-lettered; the page itself never depends on it.
 */
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { SNSClient } from '@aws-sdk/client-sns';
import { perRegion } from '../../base/common/per-region.ts';
import { briefAlarmChange } from './brief.ts';
import { readBriefEnv } from '../../base/config/env/brief-env.ts';

const env = readBriefEnv();
const sns = new SNSClient({});
const logs = perRegion((region) => new CloudWatchLogsClient({ region }));

export async function handler(event: unknown): Promise<{ published: boolean; dedupKey?: string; reason?: string }> {
  const result = await briefAlarmChange(event, { env, sns, logs });
  const summary = result.published ? { published: true, dedupKey: result.dedupKey } : { published: false, reason: result.reason };
  // One JSON line, like the run's: the brief's own trail in its log group.
  process.stdout.write(`${JSON.stringify({ message: 'mcp-canary brief', ...summary })}\n`);
  return summary;
}
