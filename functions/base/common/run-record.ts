/**
 * The contract between the scheduled run (which publishes and logs), the CDK stacks (whose alarms,
 * saved queries and ledger table read it) and the brief (which quotes): the metric, its one dimension,
 * the value of a run, the run's log lines, and the ledger table's key. Change it here and the alarms,
 * the publisher, the queries and the brief follow.
 */
import { Outcome, type Verdict } from './verdict.ts';

/**
 * One custom metric per target, `Verdict`, whatever the number of regions (each distinct name ×
 * dimension set is a billed custom metric, so the region dimension would multiply the bill). Every
 * region's run adds one datapoint to it, stamped with the period it was *scheduled* for. Its value is a
 * place-value code (`verdictValue`), so the two statistics the alarms read carry three counts:
 * - `SampleCount` is the number of regions that reported a run: the heartbeat;
 * - the whole part of `Sum` is the number of regions whose run failed;
 * - the next ten binary places of `Sum` count the regions whose run could not judge (inconclusive);
 * - anything above 0 means some region needs a ticket.
 * The alarms decode it per point with FLOOR (infra/constructs/alarm-math.ts), history with
 * `decodeVerdicts` below.
 *
 * Per region, one fleet-level metric, `RunDuration` (dimension `ProbeRegion` only: one metric per probe
 * region, not per target·region): every run's `verdict.durationMs`. The dashboard reads latency and the
 * runs reported per region from it instead of scanning the run log with Logs Insights on every refresh.
 * No alarm reads it.
 *
 * Per schedule rate, one fleet-level metric, `Inconclusive` (dimension `Rate`, e.g. `1m`): the number of
 * verdicts that could not judge, only where there was one. The canary owner's alarm reads it
 * (infra/constructs/inconclusive-alarms.ts): one alarm per rate, not one per target.
 */
export const MetricName = { verdict: 'Verdict', runDuration: 'RunDuration', inconclusive: 'Inconclusive' } as const;
export const Dimension = { target: 'Target', probeRegion: 'ProbeRegion', rate: 'Rate' } as const;

/**
 * A run that could not judge (inconclusive) adds this to `Sum`, beside its ticket weight. The place is
 * 2^-10 wide so that history can decode it even from an hour's Sum (CloudWatch keeps only hourly data
 * after 63 days): at most 10 regions × 60 runs = 600 inconclusive runs in a point stay below 1, and so
 * below the failed count's place. Powers of two, so sums stay exact in floating point (and in the decimal
 * digits a console shows: 2^-10 has ten).
 */
export const INCONCLUSIVE_WEIGHT = 2 ** -10;

/**
 * A run that is worth a ticket but not a page (degraded, inconclusive, or healthy with a warning such as
 * a certificate about to expire) adds this to `Sum`: 600 of them stay below one inconclusive place, so
 * neither count is disturbed, and `Sum > 0` still means "some region needs a ticket".
 */
export const TICKET_WEIGHT = 2 ** -20;

/** The value one run adds to its target's `Verdict` metric. */
export function verdictValue(v: Pick<Verdict, 'outcome' | 'warnings'>): number {
  if (v.outcome === 'failed') return 1;
  if (v.outcome === 'inconclusive') return INCONCLUSIVE_WEIGHT + TICKET_WEIGHT;
  if (v.outcome !== 'healthy' || v.warnings.length > 0) return TICKET_WEIGHT;
  return 0;
}

/** A point of the `Verdict` metric as counts. */
export interface VerdictCounts {
  /** Regions that reported a run: SampleCount. */
  readonly reports: number;
  /** Of those, regions whose run failed. */
  readonly failed: number;
  /** Of those, regions whose run could not judge. */
  readonly inconclusive: number;
  /** Some region needs a ticket (failed, inconclusive, degraded or warned): Sum > 0. */
  readonly ticket: boolean;
  /**
   * Regions worth a ticket but not failed (degraded, warned or inconclusive): the TICKET_WEIGHT place. Exact
   * for a point of one run per region; a point of many runs sums them.
   */
  readonly ticketed: number;
}

/**
 * `Sum` and `SampleCount` of one point (any period: a sum of runs) → counts, the way the alarms decode
 * it. Points written before inconclusive had a place of its own (every ticket run, inconclusive included,
 * added 1/64) decode to more failed and inconclusive regions than reported; they are read the way those
 * alarms read them: failed as written, inconclusive as judged (0). The alarms apply the same guard.
 */
export function decodeVerdicts(sum: number, sampleCount: number): VerdictCounts {
  const failed = Math.floor(sum);
  const inconclusive = Math.floor(sum / INCONCLUSIVE_WEIGHT) - failed / INCONCLUSIVE_WEIGHT;
  const legacy = failed + inconclusive > sampleCount;
  // A legacy point's fraction is 1/64 per ticket run; today's is the TICKET_WEIGHT place below inconclusive's.
  const ticketed = legacy
    ? Math.round((sum - failed) * 64)
    : Math.round((sum - failed - inconclusive * INCONCLUSIVE_WEIGHT) / TICKET_WEIGHT);
  return { reports: sampleCount, failed, inconclusive: legacy ? 0 : inconclusive, ticket: sum > 0, ticketed };
}

/** A schedule's period as the stacks and the `Rate` dimension name it: 300 → `5m`; 3600 → `1h`; 172800 → `48h`. */
export function rateSlug(periodSeconds: number): string {
  return periodSeconds % 3600 === 0 ? `${periodSeconds / 3600}h` : `${periodSeconds / 60}m`;
}

/** The run's one structured log line per target: the evidence the page brief quotes. */
export interface RunRecord {
  readonly message: 'mcp-canary run';
  readonly target: string;
  readonly probeRegion: string;
  /** ISO 8601, when the run started. */
  readonly startedAt: string;
  /**
   * ISO 8601, the start of the period the run was scheduled for (Scheduler's scheduled time, floored to
   * the period): the timestamp of its datapoint, so a run that starts late in its minute, or takes its
   * whole budget, still counts for the period it belongs to and never twice.
   */
  readonly scheduledFor: string;
  readonly verdict: Verdict;
}
export const RUN_RECORD_MESSAGE = 'mcp-canary run' as const;

export const PUBLISH_FAILED_MESSAGE = 'mcp-canary publish failed' as const;

/** Logged when metrics could not be published; the run lines were already written before. */
export interface PublishFailedRecord {
  readonly message: typeof PUBLISH_FAILED_MESSAGE;
  readonly homeRegion: string;
  readonly namespace: string;
  readonly probeRegion: string;
  readonly targets: readonly string[];
  readonly attempts: number;
  readonly errors: readonly string[];
}

export const RUN_SKIPPED_MESSAGE = 'mcp-canary run skipped' as const;

/**
 * Logged when a delivery did not judge some of its targets: another delivery of the same scheduled run
 * claimed them (`duplicate`: harmless), or their credentials could not be read for now and no earlier
 * value was at hand (`credentials`: the canary's own fault, no verdict; functions/base/common/own-faults.ts).
 */
export interface RunSkippedRecord {
  readonly message: typeof RUN_SKIPPED_MESSAGE;
  readonly probeRegion: string;
  /** The period the delivery was scheduled for. */
  readonly scheduledFor: string;
  readonly targets: readonly string[];
  readonly reason: 'duplicate' | 'credentials';
  readonly detail: string;
}

export const LEDGER_FAULT_MESSAGE = 'mcp-canary ledger fault' as const;

/** Logged when the run ledger could not record a target's claim and the run was judged and published anyway (fail-open). */
export interface LedgerFaultRecord {
  readonly message: typeof LEDGER_FAULT_MESSAGE;
  readonly probeRegion: string;
  readonly scheduledFor: string;
  readonly target: string;
  readonly detail: string;
}

/**
 * The run ledger's partition key and TTL attribute: the names Powertools' Idempotency utility used (the
 * ledger's first release), kept so that a claim written by that release is still read as a claim.
 */
export const LEDGER_KEY_ATTRIBUTE = 'id';
export const LEDGER_TTL_ATTRIBUTE = 'expiration';

/**
 * One JSON log line → a run record, or `null`. Accepts the line as the run writes it (raw JSON on
 * stdout), and also inside Lambda's text prefix or JSON log format, in case the log format changes.
 */
export function parseRunRecord(message: string): RunRecord | null {
  const start = message.indexOf('{');
  if (start < 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(message.slice(start));
  } catch {
    return null;
  }
  const wrapped = (value as { message?: unknown } | null)?.message;
  if (wrapped !== null && typeof wrapped === 'object') value = wrapped;
  else if (typeof wrapped === 'string' && wrapped.trimStart().startsWith('{')) return parseRunRecord(wrapped);
  return isRunRecord(value) ? value : null;
}

function isRunRecord(v: unknown): v is RunRecord {
  const r = v as Partial<RunRecord> | null;
  return (
    r !== null &&
    typeof r === 'object' &&
    r.message === RUN_RECORD_MESSAGE &&
    typeof r.target === 'string' &&
    typeof r.probeRegion === 'string' &&
    typeof r.startedAt === 'string' &&
    !Number.isNaN(Date.parse(r.startedAt)) &&
    typeof r.verdict === 'object' &&
    r.verdict !== null &&
    Object.values(Outcome).includes(r.verdict.outcome)
  );
}

/** The CloudWatch Logs filter pattern for one target's run records (JSON lines, as the run writes them). */
export function runRecordFilter(target: string): string {
  return `{ ($.message = "${RUN_RECORD_MESSAGE}") && ($.target = "${target}") }`;
}
