/**
 * The contract between the scheduled run (which publishes), the alarms (which read) and the brief
 * (which quotes): metric names, dimensions, the outcome codes, and the shape of the run's log line.
 * Change it here and the CDK alarms, the publisher and the brief follow.
 */
import { Outcome, type Verdict } from '../verdict.ts';

/**
 * Two custom metrics per target·region, always the same two (each distinct name × dimension set is a
 * billed custom metric):
 * - `Outcome`: one datapoint per run, the outcome code below. Its SampleCount is the heartbeat
 *   ("a run happened"), its Maximum is the worst outcome of the period.
 * - `Duration`: the run's wall time in milliseconds.
 */
export const MetricName = { outcome: 'Outcome', duration: 'Duration' } as const;
export const Dimension = { target: 'Target', probeRegion: 'ProbeRegion' } as const;

/** Ordered by severity so `Maximum >= failed` is "failed" without metric math. */
export const OutcomeCode: Readonly<Record<Outcome, number>> = {
  [Outcome.healthy]: 0,
  [Outcome.degraded]: 1,
  [Outcome.inconclusive]: 2,
  [Outcome.failed]: 3,
};

/** The run's one structured log line per target: the evidence the page brief quotes. */
export interface RunRecord {
  readonly message: 'mcp-canary run';
  readonly target: string;
  readonly probeRegion: string;
  /** ISO 8601, when the run started. */
  readonly startedAt: string;
  readonly verdict: Verdict;
}
export const RUN_RECORD_MESSAGE = 'mcp-canary run' as const;
