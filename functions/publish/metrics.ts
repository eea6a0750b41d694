/**
 * Run records → CloudWatch custom metrics in the home region, in as few PutMetricData calls as the API
 * allows. Throttling and network failures are retried with backoff, but only while the run's deadline
 * leaves room: a publish that still fails is reported to the caller (who logs it), never thrown — a throw
 * would make the scheduler retry the whole run and count it twice.
 */
import { PutMetricDataCommand, type CloudWatchClient, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { Dimension, MetricName, verdictValue, type RunRecord } from './schema.ts';
import { oneLine } from '../redact.ts';

/** PutMetricData accepts up to 1000 MetricDatum per call (and 1 MB; 1000 of ours are ~150 KB). */
export const MAX_DATUMS_PER_CALL = 1000;
/** Backoff between attempts: 200 ms, doubling, capped; each delay jittered to half..full. */
export const PUBLISH_BASE_DELAY_MS = 200;
export const PUBLISH_MAX_DELAY_MS = 2_000;
/** An attempt that cannot get at least this long before the deadline is not started. */
export const MIN_ATTEMPT_MS = 250;

/**
 * The one datum of one run; the name, dimension and value are the contract in `schema.ts`. Stamped with
 * the period the run was scheduled for, not the second it ran: the alarms count regions per period.
 */
export function metricData(record: RunRecord): MetricDatum[] {
  return [
    {
      MetricName: MetricName.verdict,
      Dimensions: [{ Name: Dimension.target, Value: record.target }],
      Timestamp: new Date(record.scheduledFor),
      Value: verdictValue(record.verdict),
      Unit: 'None',
      StorageResolution: 60,
    },
  ];
}

export interface PublishOptions {
  readonly namespace: string;
  /** Wall-clock ms (as `now()` returns) after which no attempt is made. */
  readonly deadlineAt: number;
  /** @default - Date.now */
  readonly now?: () => number;
  /** @default - setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** 0 ≤ x < 1, for the jitter. @default - Math.random */
  readonly random?: () => number;
}

export interface PublishResult {
  /** Every datum was accepted. */
  readonly published: boolean;
  readonly calls: number;
  readonly attempts: number;
  /** The last error of each batch that gave up: `Name: message`. */
  readonly errors: readonly string[];
}

export async function publishRuns(client: CloudWatchClient, records: readonly RunRecord[], opts: PublishOptions): Promise<PublishResult> {
  const data = records.flatMap(metricData);
  const batches: MetricDatum[][] = [];
  for (let i = 0; i < data.length; i += MAX_DATUMS_PER_CALL) batches.push(data.slice(i, i + MAX_DATUMS_PER_CALL));
  const results = await Promise.all(batches.map((batch) => putWithRetry(client, batch, opts)));
  return {
    published: results.every((r) => r.error === null),
    calls: batches.length,
    attempts: results.reduce((n, r) => n + r.attempts, 0),
    errors: results.flatMap((r) => (r.error === null ? [] : [r.error])),
  };
}

async function putWithRetry(
  client: CloudWatchClient,
  batch: MetricDatum[],
  opts: PublishOptions,
): Promise<{ attempts: number; error: string | null }> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = opts.random ?? Math.random;
  let lastError = 'no attempt fitted before the run deadline';
  for (let attempt = 1; ; attempt++) {
    const leftMs = opts.deadlineAt - now();
    if (leftMs < MIN_ATTEMPT_MS) return { attempts: attempt - 1, error: lastError };
    try {
      // A fresh command per attempt: the SDK's middleware state is per send.
      await client.send(new PutMetricDataCommand({ Namespace: opts.namespace, MetricData: batch }), {
        abortSignal: AbortSignal.timeout(Math.floor(leftMs)),
      });
      return { attempts: attempt, error: null };
    } catch (e) {
      lastError = describe(e);
      if (!isRetryable(e)) return { attempts: attempt, error: lastError };
      const capped = Math.min(PUBLISH_BASE_DELAY_MS * 2 ** (attempt - 1), PUBLISH_MAX_DELAY_MS);
      const delayMs = Math.round(capped / 2 + random() * (capped / 2));
      if (opts.deadlineAt - now() - delayMs < MIN_ATTEMPT_MS) return { attempts: attempt, error: lastError };
      await sleep(delayMs);
    }
  }
}

const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottledException',
]);
/** The socket errors the SDK itself treats as transient (timeouts, resets, DNS hiccups). */
const NETWORK = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/**
 * Throttling, 5xx and socket errors are worth another try. A 4xx like AccessDenied answers the same
 * way again, and so does an error with no answer at all that is not a socket error (no credentials,
 * a bad endpoint): retrying those would only spend the run's budget.
 */
export function isRetryable(e: unknown): boolean {
  const err = e as { name?: string; code?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } } | null;
  if (err?.name && THROTTLING.has(err.name)) return true;
  if (err?.$retryable) return true;
  const status = err?.$metadata?.httpStatusCode;
  if (status !== undefined) return status === 429 || status >= 500;
  return NETWORK.has(err?.code ?? '') || NETWORK.has(err?.name ?? '');
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return `${e.name}: ${oneLine(e.message, 200)}`;
}
