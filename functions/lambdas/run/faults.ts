/**
 * The run's own faults, written where the canary owner's alarms read them: the `CanaryFaults` metric in
 * the probe region, as CloudWatch embedded metric format on stdout (Powertools Metrics). Why a metric and
 * not a thrown error: the run did happen, and most of it may have gone right (one wave not accepted, one
 * claim not recorded); a throw would dead-letter an event that must not be run again and count as a crash
 * in the Errors metric, and one alarm per fault can say what broke and what to do. Why EMF and not
 * PutMetricData: see functions/base/common/own-faults.ts.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { OWN_FAULTS_METRIC, OWN_FAULTS_SERVICE, OwnFaultDimension, ownFaults, type OwnFaultCounts } from '../../base/common/own-faults.ts';

/** Records one invocation's own faults. Called once per invocation, with only the faults that happened. */
export type FaultSink = (counts: OwnFaultCounts) => void;

/** The faults as EMF lines in the fleet's namespace, one line per fault that happened (none when all is well: no metric-hours billed). */
export function emfFaults(namespace: string): FaultSink {
  const metrics = new Metrics({ namespace, serviceName: OWN_FAULTS_SERVICE });
  return (counts) => {
    for (const fault of ownFaults) {
      const n = counts[fault] ?? 0;
      if (n <= 0) continue;
      // A single-metric instance publishes on addMetric: one line, its own Fault dimension.
      const one = metrics.singleMetric();
      one.addDimension(OwnFaultDimension.fault, fault);
      one.addMetric(OWN_FAULTS_METRIC, MetricUnit.Count, n);
    }
  };
}

/** Only the faults that happened, or undefined when none did. */
export function happened(counts: OwnFaultCounts): OwnFaultCounts | undefined {
  const some = Object.fromEntries(Object.entries(counts).filter(([, n]) => (n ?? 0) > 0));
  return Object.keys(some).length > 0 ? some : undefined;
}
