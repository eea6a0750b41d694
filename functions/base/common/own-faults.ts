/**
 * The canary's own faults: what keeps a run from being judged or counted that is the canary's doing, not
 * the endpoint's. None of them is a verdict (a fault of the canary must never page the endpoint's owner,
 * and must never count as healthy); each one reaches the canary owner, in the probe region where it
 * happens, through the `CanaryFaults` metric the run writes there and one alarm per fault
 * (infra/constructs/own-fault-alarms.ts).
 *
 * The metric is written as CloudWatch embedded metric format in the run's own log (Powertools Metrics,
 * functions/lambdas/run/faults.ts), not with PutMetricData: CloudWatch Logs extracts it in the probe
 * region, so it still arrives when PutMetricData is denied or the home region's CloudWatch is impaired,
 * the very faults it reports. It is written only when a fault happens, so a healthy canary adds no
 * metric-hours to the bill (custom metrics are billed by the hours they receive data in).
 */

/**
 * - `ledger`: the run ledger (DynamoDB, functions/lambdas/run/ledger.ts) could not record a claim: the run
 *   was judged and published anyway (fail-open), unprotected against a duplicate delivery;
 * - `publish`: a verdict's datapoint was not accepted by the home region's CloudWatch (denied, throttled
 *   past the run's deadline, a 5xx, no answer): that region is silent for the target's alarms;
 * - `credentials`: a credential read failed (throttled, a 5xx, no answer, denied): the run was served
 *   the last good value, or was not judged at all when there was none.
 */
export const OwnFault = { ledger: 'ledger', publish: 'publish', credentials: 'credentials' } as const;
export type OwnFault = (typeof OwnFault)[keyof typeof OwnFault];
export const ownFaults: readonly OwnFault[] = Object.values(OwnFault);

/** How many of each fault one invocation met (targets for `ledger` and `publish`, failed reads for `credentials`). */
export type OwnFaultCounts = Readonly<Partial<Record<OwnFault, number>>>;

/**
 * The metric in the probe region: `CanaryFaults` (Count) in the fleet's namespace, with the dimensions
 * Powertools writes, `service` (always `mcp-canary-run`) and `Fault`. The alarms name all of them.
 */
export const OWN_FAULTS_METRIC = 'CanaryFaults';
export const OWN_FAULTS_SERVICE = 'mcp-canary-run';
export const OwnFaultDimension = { service: 'service', fault: 'Fault' } as const;

/** The canary-owner alarm of a fault in each probe region: `<fleet>/canary/run-<fault>` (`canaryAlarmName`). */
export function ownFaultAlarmWhat(fault: OwnFault): string {
  return `run-${fault}`;
}
