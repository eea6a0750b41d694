/**
 * Run records → CloudWatch custom metrics in the home region, in as few PutMetricData calls as the API
 * allows. A failed put is retried with backoff only when it was certainly NOT stored, and only while the
 * run's deadline leaves room: PutMetricData has no idempotency token, so a put retried after a timeout,
 * a 5xx or a reset (when the datum may already be stored) could count its region twice in a period — and
 * a region counted twice moves the alarms (a duplicated healthy region resolves a page; a duplicated
 * failing one reaches the quorum alone). A datum lost that way is a region missing one period, which the
 * alarms tolerate. A publish that fails is reported to the caller (who logs it), never thrown.
 */
import { PutMetricDataCommand, type CloudWatchClient, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { Dimension, MetricName, verdictValue, type RunRecord } from '../../base/common/run-record.ts';
import { FailureClass, Outcome } from '../../base/common/verdict.ts';
import { oneLine } from '../../base/common/redact.ts';
import { AwsErrorKind, awsFailure } from '../../base/common/aws-errors.ts';

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

/** PutMetricData takes at most 150 distinct values in one datum's `Values`. */
export const MAX_VALUES_PER_DATUM = 150;

/**
 * The fleet-level datum of one probe region for these records: every run's duration, as one datum per
 * 150 values (`Values`/`Counts`, so percentiles stay exact). One metric per probe region however many
 * targets: the dashboard's per-region latency and run count, without Logs Insights scans.
 */
export function regionData(records: readonly RunRecord[]): MetricDatum[] {
  const byPeriod = new Map<string, Map<string, Map<number, number>>>();
  for (const r of records) {
    const regions = byPeriod.get(r.scheduledFor) ?? new Map<string, Map<number, number>>();
    const counts = regions.get(r.probeRegion) ?? new Map<number, number>();
    const ms = Math.max(0, Math.round(r.verdict.durationMs));
    counts.set(ms, (counts.get(ms) ?? 0) + 1);
    regions.set(r.probeRegion, counts);
    byPeriod.set(r.scheduledFor, regions);
  }
  const out: MetricDatum[] = [];
  for (const [period, regions] of byPeriod) {
    for (const [region, counts] of regions) {
      const pairs = [...counts];
      for (let i = 0; i < pairs.length; i += MAX_VALUES_PER_DATUM) {
        const slice = pairs.slice(i, i + MAX_VALUES_PER_DATUM);
        out.push({
          MetricName: MetricName.runDuration,
          Dimensions: [{ Name: Dimension.probeRegion, Value: region }],
          Timestamp: new Date(period),
          Values: slice.map(([v]) => v),
          Counts: slice.map(([, n]) => n),
          Unit: 'Milliseconds',
          StorageResolution: 60,
        });
      }
    }
  }
  return out;
}

/**
 * The fleet-level datum of these records' verdicts that could not judge: one per period with any, its
 * value their number; none without (so a period with none is missing, never a 0 that arrived before a
 * late wave's 1). The canary owner's alarm reads it per rate. A gateway's backend not judged because the
 * gateway is down is not the canary's fault: the gateway's own failed verdict pages, so it is left out.
 */
export function inconclusiveData(records: readonly RunRecord[], rate: string): MetricDatum[] {
  const byPeriod = new Map<string, number>();
  for (const r of records)
    if (r.verdict.outcome === Outcome.inconclusive && r.verdict.failure !== FailureClass.gatewayDown)
      byPeriod.set(r.scheduledFor, (byPeriod.get(r.scheduledFor) ?? 0) + 1);
  return [...byPeriod].map(([period, count]) => ({
    MetricName: MetricName.inconclusive,
    Dimensions: [{ Name: Dimension.rate, Value: rate }],
    Timestamp: new Date(period),
    Value: count,
    Unit: 'Count',
    StorageResolution: 60,
  }));
}

/** Every datum of one publish: each run's `Verdict`, the regions' `RunDuration`, the rate's `Inconclusive`. */
export function runData(records: readonly RunRecord[], rate: string): MetricDatum[] {
  return [...records.flatMap(metricData), ...regionData(records), ...inconclusiveData(records, rate)];
}

export interface PublishOptions {
  readonly namespace: string;
  /** The schedule's rate as the stacks name it (`1m`): the `Inconclusive` metric's dimension. */
  readonly rate: string;
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
  const data = runData(records, opts.rate);
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
    const remainingMs = opts.deadlineAt - now();
    if (remainingMs < MIN_ATTEMPT_MS) return { attempts: attempt - 1, error: lastError };
    try {
      // A fresh command per attempt: the SDK's middleware state is per send.
      await client.send(new PutMetricDataCommand({ Namespace: opts.namespace, MetricData: batch }), {
        abortSignal: AbortSignal.timeout(Math.floor(remainingMs)),
      });
      return { attempts: attempt, error: null };
    } catch (e) {
      lastError = describe(e);
      if (!certainlyNotStored(e)) return { attempts: attempt, error: lastError };
      const capped = Math.min(PUBLISH_BASE_DELAY_MS * 2 ** (attempt - 1), PUBLISH_MAX_DELAY_MS);
      const delayMs = Math.round(capped / 2 + random() * (capped / 2));
      if (opts.deadlineAt - now() - delayMs < MIN_ATTEMPT_MS) return { attempts: attempt, error: lastError };
      await sleep(delayMs);
    }
  }
}

/**
 * A put is retried only when it certainly was not stored: the service refused it for throttling (it
 * answered, and stored nothing), or the request never reached it (no connection, the connection
 * timeout). Everything else that might pass on a retry — a 5xx, a reset, a timeout after the request
 * went out, an abort — may have been stored already, and a second copy would count the region twice; it
 * is reported, not retried. A 4xx like AccessDenied would answer the same way again, so it is not
 * retried either. The kinds are the AWS error boundary's (common/aws-errors.ts).
 */
export function certainlyNotStored(e: unknown): boolean {
  const { kind } = awsFailure(e);
  return kind === AwsErrorKind.throttled || kind === AwsErrorKind.notConnected;
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const f = awsFailure(e);
  return `${f.name}: ${oneLine(f.message, 200)}`;
}
