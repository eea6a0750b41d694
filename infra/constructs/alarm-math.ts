/**
 * The metric-math expressions the target alarms watch. Every region's run adds one datapoint to the
 * target's one `Verdict` metric (see functions/base/common/run-record.ts), stamped with the period it was
 * scheduled for; the alarms read it twice: `failing` (Sum) and `reports` (SampleCount: regions that
 * reported). Sum is a place-value code, decoded per point with FLOOR: its whole part counts the regions
 * that failed (F), the next ten binary places those whose run could not judge (I, inconclusive: the
 * canary's own credentials or config), and anything above 0 means some region needs a ticket.
 *
 * Why not just `failing >= k`: CloudWatch evaluates a 1-minute alarm a few seconds after the minute
 * closes, on the datapoints that have ARRIVED. A region's run starts at any second of its minute and
 * publishes when it ends, so the newest period is usually incomplete when it is first evaluated; a
 * region that is slow to publish would look healthy, and a region that is silent would look like it
 * "does not fail". Both made pages late, flap, or resolve while the endpoint was still down.
 *
 * So each expression yields a value only where the period's verdict is already DETERMINED by what has
 * arrived, and no value (a missing point) where it is not. With R regions, quorum k, and H = reports −
 * F − I the regions that judged and did not fail:
 * - breaching: F ≥ 1 and F·R ≥ k·(R − I): a quorum's share of the regions that judge the period failed,
 *   counting every region not yet heard from as one that would judge it healthy (so more arrivals cannot
 *   undo it). With no region inconclusive that is F ≥ k, as before; with some, a page still opens from
 *   the regions that do judge: an inconclusive region is no evidence either way, so it neither votes for
 *   the page nor blocks it. (Not a quorum of all R regions: then the canary's own fault in R − k + 1
 *   regions, e.g. the one home-region credential parameter every region reads by ARN, would keep any
 *   page from opening during an outage.)
 * - not breaching: H > R − k: k failures are impossible even if every region not judged healthy
 *   (inconclusive, silent or late) failed. Only a judged region counts towards resolving: "cannot judge"
 *   is never "the endpoint is fine", so an open page stays open while regions are inconclusive.
 * The value where determined is F + I, and it is ≥ k exactly when breaching: breaching needs F + I ≥ k
 * (F·R ≥ k·(R − I) with F + I < k would give F·(R − k) > k·(R − k)), and not breaching leaves F + I ≤
 * R − H < k. So the two never both hold, and a period every region judged shows F, its failing regions
 * (the page's "3.0 ≥ 2.0").
 *
 * With `treatMissingData: ignore`, an undetermined period changes nothing: CloudWatch evaluates the
 * newest N *existing* points ("most recent existing data points"), and with none it keeps the state.
 * That gives: no early page from a partial period, no flap from a late region, and an open page that
 * stays open when the canary goes silent or cannot judge (all regions, or all but the failing ones).
 *
 * Built only from arithmetic, comparisons, IF and FLOOR (per point), whose missing-data rules CloudWatch
 * documents; no FILL (it would invent a value for an undetermined period) and no MAX/SUM over series.
 * Sum's places are powers of two, so it is exact; FLOOR reads the whole part and the first ten places,
 * whose digits a decimal store would keep too (2^-10 has ten); the ticket place below them is read only by a
 * gateway's backend's tickets (`judgedTicketRegions`).
 *
 * Points written before inconclusive had a place (every ticket run then added 1/64, inconclusive too)
 * decode to more failed and inconclusive regions than reported: such a point is read as those alarms
 * read it, with I = 0, so a rollout that leaves one region on the old run code never pages nor holds a
 * page through the decoding (functions/base/common/run-record.ts `decodeVerdicts` does the same).
 *
 * Both statistics count datapoints, so all of this assumes each region's run counts ONCE per period.
 * AWS does not promise that: Scheduler and Lambda's asynchronous queue deliver at least once, and a
 * PutMetricData retried after a timeout may store its datum twice (it has no idempotency token). One
 * region counted twice is two "reports": a duplicated healthy region makes H reach its bound before the
 * failing regions' late runs arrive (a period settled "not breaching": the page resolves and re-pages
 * mid-outage), and a duplicated failing region reaches the quorum alone. No statistic ignores copies and
 * still counts regions (only Maximum/Minimum ignore them). So the runs make it true instead: a run
 * claims its period in the run ledger before judging and a duplicate does nothing
 * (functions/lambdas/run/ledger.ts), and a put is retried only when it certainly was not stored
 * (functions/io/publish/metrics.ts). test/unit/infra/timing-faults.test.ts shows both bugs with the old runs.
 */
import { INCONCLUSIVE_WEIGHT, TICKET_WEIGHT } from '../../functions/base/common/run-record.ts';

/** Metric ids in the alarms' math: the target's `Verdict` metric read with two statistics. */
export const FAILING = 'failing';
export const REPORTS = 'reports';

/** 1024: one inconclusive region is this many units of Sum's second place. */
const PLACE = 1 / INCONCLUSIVE_WEIGHT;
/** F: regions whose run failed. */
const FAILED = `FLOOR(${FAILING})`;
/** F + I, as written: Sum's whole part and first ten binary places, counted in inconclusive units, less 1023 per failed region. */
const FAILED_OR_UNJUDGED = `(FLOOR(${PLACE} * ${FAILING}) - ${PLACE - 1} * ${FAILED})`;
/** I: regions whose run could not judge; 0 for a point written before I had a place (F + I would exceed the reports). */
const INCONCLUSIVE = `IF(${FAILED_OR_UNJUDGED} > ${REPORTS}, 0, FLOOR(${PLACE} * ${FAILING}) - ${PLACE} * ${FAILED})`;

/**
 * Regions failing or unable to judge (F + I), where the period is already determined: breaching once a
 * quorum's share of the regions that may judge it failed, not breaching once more than R − k regions
 * judged it not failing; missing otherwise. The alarm's threshold is `quorum`.
 */
export function failingRegions(regionCount: number, quorum: number): string {
  const value = `${FAILED} + ${INCONCLUSIVE}`;
  const breaching = `(${FAILED} >= 1) AND (${regionCount} * ${FAILED} + ${quorum} * ${INCONCLUSIVE} >= ${quorum * regionCount})`;
  const notBreaching = `${REPORTS} - ${FAILED} - ${INCONCLUSIVE} > ${regionCount - quorum}`;
  return `IF(${breaching}, ${value}, IF(${notBreaching}, ${value}))`;
}

/**
 * Regions that need a ticket (failed, degraded, inconclusive, or healthy with a warning), where already
 * determined: any at all is determined (> 0); none is determined only once every region has reported.
 */
export function ticketRegions(regionCount: number): string {
  return `IF(${FAILING} > 0, ${FAILING}, IF(${REPORTS} >= ${regionCount}, ${FAILING}))`;
}

/** 2^20: one ticket run is this many units of Sum's ticket place. */
const TICKET_PLACE = 1 / TICKET_WEIGHT;

/**
 * A gateway's backend's tickets: regions failed, degraded or warned — not those that could not judge,
 * which for a backend is the gateway being down (`gateway_down`: the gateway's own page carries it, and
 * ten backends must not open ten tickets with it) or its own config (the canary owner's `Inconclusive`
 * alarm hears that). This one reads the ticket place: every inconclusive run also put one ticket there,
 * so T − I are the others. Exact: Sum is a double, and a point of at most 600 runs spans 2^10 … 2^-20,
 * 30 bits of its 53 (9 significant digits of 600.000…, well inside what a decimal store keeps).
 */
export function judgedTicketRegions(regionCount: number): string {
  const ticketed = `FLOOR(${TICKET_PLACE} * (${FAILING} - ${FAILED} - ${INCONCLUSIVE} / ${PLACE}) + 0.5)`;
  const value = `(${FAILED} + ${ticketed} - ${INCONCLUSIVE})`;
  return `IF(${value} > 0, ${value}, IF(${REPORTS} >= ${regionCount}, ${value}))`;
}
