/**
 * The Lambda that EventBridge Scheduler invokes in every probe region, once per period, with
 * `{ "targets": [ ... ] }`. Thin on purpose: environment and SDK clients are set up once per container,
 * the run does the work. It throws only for a broken payload envelope (a deploy mistake, no target to
 * name); a down, slow or misconfigured target is a verdict, and a duplicate delivery is a logged skip,
 * never a throw: a throw dead-letters the event and alarms the canary owner.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { readRunEnv } from '../../base/config/env/env.ts';
import { perRegion } from '../../base/common/per-region.ts';
import { dynamoRunLedger, EVERY_DELIVERY_RUNS } from './ledger.ts';
import { run, type RunSummary } from './run.ts';
import { SecretReader } from '../../io/secrets/reader.ts';
import { readTelemetryEnv } from '../../base/config/schema/telemetry.ts';
import { telemetryFor } from './telemetry.ts';
import { emfFaults } from './faults.ts';

/** The part of the Lambda context the run uses. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

const env = readRunEnv();
// One attempt per send: publishRuns retries itself, and only puts that were certainly not stored (a retry
// of a stored datum would count its region twice). The connection timeout makes "never connected" an
// error it can recognise as such.
const cloudWatch = new CloudWatchClient({ region: env.homeRegion, maxAttempts: 1, requestHandler: { connectionTimeout: 1_000 } });
// The ledger is in the probe region; the claim's own 3 s cut (ledger.ts) keeps it inside the secret-read
// window. A connection that cannot be made is retried once. No requestTimeout: the SDK only logs a warning
// for one (on stderr, outside the JSON log) unless told to throw, and a thrown one turns a slow answer that
// would still come inside the 3 s into a second attempt that can lose the run.
const ledger = env.runLedgerTable
  ? dynamoRunLedger({
      tableName: env.runLedgerTable,
      client: new DynamoDBClient({ region: env.probeRegion, maxAttempts: 2, requestHandler: { connectionTimeout: 500 } }),
    })
  : EVERY_DELIVERY_RUNS;
// One retry per read: a throttled store is not helped by more calls against its quota, and a value kept
// from an earlier read is served through the fault (io/secrets/reader.ts).
const secrets = new SecretReader(
  {
    secretsManager: perRegion((region) => new SecretsManagerClient({ region, maxAttempts: 2 })),
    ssm: perRegion((region) => new SSMClient({ region, maxAttempts: 2 })),
  },
  { defaultRegion: env.probeRegion, proxy: env.proxy },
);
const faults = emfFaults(env.namespace);

// Off unless the fleet configures it; the OpenTelemetry SDK itself is loaded only then (telemetry/batch.ts).
const telemetry = readTelemetryEnv();

export async function handler(event: unknown, context?: InvocationContext): Promise<RunSummary> {
  return run(event, {
    ...env,
    cloudWatch,
    secrets,
    ledger,
    faults,
    remainingMs: context?.getRemainingTimeInMillis(),
    telemetry: telemetry && telemetryFor(telemetry, { probeRegion: env.probeRegion, secrets, credentials: cloudWatch.config.credentials }),
  });
}
