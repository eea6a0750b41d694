/**
 * The metric-math expressions the target alarms watch. Every region's run adds one datapoint to the
 * target's one `Verdict` metric (see functions/base/common/run-record.ts), stamped with the period it was
 * scheduled for; the alarms read it twice: `failing` (Sum: failed regions, plus a ticket weight under 1)
 * and `reports` (SampleCount: regions that reported).
 *
 * Why not just `failing >= k`: CloudWatch evaluates a 1-minute alarm a few seconds after the minute
 * closes, on the datapoints that have ARRIVED. A region's run starts at any second of its minute and
 * publishes when it ends, so the newest period is usually incomplete when it is first evaluated; a
 * region that is slow to publish would look healthy, and a region that is silent would look like it
 * "does not fail". Both made pages late, flap, or resolve while the endpoint was still down.
 *
 * So each expression yields a value only where the period's verdict is already DETERMINED by what has
 * arrived, and no value (a missing point) where it is not:
 * - breaching: already ≥ k regions failed (more arrivals cannot undo that);
 * - not breaching: so many regions reported not-failing that k failures are no longer possible.
 * With `treatMissingData: ignore`, an undetermined period changes nothing: CloudWatch evaluates the
 * newest N *existing* points ("most recent existing data points"), and with none it keeps the state.
 * That gives: no early page from a partial period, no flap from a late region, and an open page that
 * stays open when the canary goes silent (all regions, or all but the failing ones).
 *
 * Built only from arithmetic, comparisons and IF, whose missing-data rules CloudWatch documents; no
 * FILL (it would invent a value for an undetermined period) and no MAX/SUM over series.
 *
 * Both statistics count datapoints, so all of this assumes each region's run counts ONCE per period.
 * AWS does not promise that: Scheduler and Lambda's asynchronous queue deliver at least once, and a
 * PutMetricData retried after a timeout may store its datum twice (it has no idempotency token). One
 * region counted twice is two "reports": a duplicated healthy region makes `reports - failing` reach
 * its bound before the failing regions' late runs arrive (a period settled "not breaching": the page
 * resolves and re-pages mid-outage), and a duplicated failing region reaches the quorum alone. No
 * statistic ignores copies and still counts regions (only Maximum/Minimum ignore them). So the runs
 * make it true instead: a run claims its period in the run ledger before judging and a duplicate does
 * nothing (functions/lambdas/run/ledger.ts), and a put is retried only when it certainly was not stored
 * (functions/io/publish/metrics.ts). test/unit/infra/timing-faults.test.ts shows both bugs with the old runs.
 */

/** Metric ids in the alarms' math: the target's `Verdict` metric read with two statistics. */
export const FAILING = 'failing';
export const REPORTS = 'reports';

/**
 * Failed regions where already determined: `failing` once it reaches `quorum`, or once too few regions
 * are left to reach it; missing otherwise. `failing` may carry ticket weights (< 1 in all), which
 * neither comparison can be fooled by: both sides of each are whole numbers plus less than one.
 */
export function failingRegions(regionCount: number, quorum: number): string {
  return `IF(${FAILING} >= ${quorum}, ${FAILING}, IF(${REPORTS} - ${FAILING} > ${regionCount - quorum}, ${FAILING}))`;
}

/**
 * Regions that need a ticket (failed, degraded, inconclusive, or healthy with a warning), where already
 * determined: any at all is determined (> 0); none is determined only once every region has reported.
 */
export function ticketRegions(regionCount: number): string {
  return `IF(${FAILING} > 0, ${FAILING}, IF(${REPORTS} >= ${regionCount}, ${FAILING}))`;
}
