/**
 * The Lambda that EventBridge Scheduler invokes in every probe region, once per period, with
 * `{ "targets": [ ... ] }`. Thin on purpose: environment and SDK clients are set up once per container,
 * the run does the work. It throws only for a broken payload envelope (a deploy mistake, no target to
 * name); a down, slow or misconfigured target is a verdict, never a throw, because a throw would be
 * retried and counted twice.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { readRunEnv } from '../config/env.ts';
import { perRegion } from '../per-region.ts';
import { run, type RunSummary } from './run.ts';
import { SecretReader } from './secrets.ts';

/** The part of the Lambda context the run uses. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

const env = readRunEnv();
// One attempt per send: publishRuns retries itself, within the run's deadline; SDK retries on top would multiply.
const cloudWatch = new CloudWatchClient({ region: env.homeRegion, maxAttempts: 1 });
const secrets = new SecretReader(
  { secretsManager: perRegion((region) => new SecretsManagerClient({ region })), ssm: perRegion((region) => new SSMClient({ region })) },
  { defaultRegion: env.probeRegion },
);

export async function handler(event: unknown, context?: InvocationContext): Promise<RunSummary> {
  return run(event, { ...env, cloudWatch, secrets, remainingMs: context?.getRemainingTimeInMillis() });
}
