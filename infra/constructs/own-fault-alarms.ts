/**
 * The canary owner's alarms on the run's own faults in one probe region (functions/base/common/own-faults.ts):
 * the run ledger, the publish to the home region, the credential reads. Each reads the `CanaryFaults`
 * metric the run functions of this region write here (as EMF in their log, so it arrives when PutMetricData
 * or the home region does not), and tells this region's canary-owner topic.
 *
 * Why here and not in the home region: a fault of the publish, or of the home region itself, is exactly
 * what an alarm in the home region cannot see. A region whose publish fails is silent for the paging
 * alarms, and the home region's dead-man hears it only after max(N, 3) periods, and not at all when the
 * home region is the one impaired: this alarm hears it in the probe region within about two periods.
 *
 * Threshold: faults in 2 of the last 3 periods of the region's fastest schedule. One period alone is
 * what the alarms already tolerate (a put not retried after an ambiguous 5xx, one throttled read); two in
 * three is a fault that lasts, heard before the dead-man's three. Cost: three standard alarms per probe
 * region, $0.30 a month at list price; the metric has data only while faults happen, so a healthy canary
 * pays no metric-hours for it.
 */
import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import {
  OWN_FAULTS_METRIC,
  OWN_FAULTS_SERVICE,
  OwnFault,
  OwnFaultDimension,
  ownFaultAlarmWhat,
} from '../../functions/base/common/own-faults.ts';
import type { FleetNames } from '../plan/names.ts';
import { ownerAlarm } from './owner-alarm.ts';

/** Periods with a fault, of the last OWN_FAULT_OUT_OF, before the owner is told. */
export const OWN_FAULT_PERIODS = 2;
export const OWN_FAULT_OUT_OF = 3;

export interface OwnFaultAlarmsProps {
  readonly names: FleetNames;
  readonly namespace: string;
  readonly region: string;
  readonly homeRegion: string;
  /** The region's fastest schedule period: the alarms' period. */
  readonly periodSeconds: number;
  readonly ownerTopicArn: string;
}

/** The alarm name of one fault: `<fleet>/canary/run-<fault>`. */
export function ownFaultAlarmName(names: FleetNames, fault: OwnFault): string {
  return names.canaryAlarm(ownFaultAlarmWhat(fault));
}

export function ownFaultAlarms(scope: Construct, p: OwnFaultAlarmsProps): void {
  const ledgerTable = `${p.names.fleet}-run-ledger`;
  const logs = p.names.runLogGroup;
  const described: Record<OwnFault, string> = {
    [OwnFault.ledger]: `The run ledger in ${p.region} (DynamoDB table ${ledgerTable}) cannot record claims: throttled, unreachable, or denied (an IAM or SCP change). Runs are still judged and published (fail-open), but a duplicate delivery meanwhile would count twice. For the canary owner. Look at "mcp-canary ledger fault" lines in ${logs} in ${p.region} for the DynamoDB error.`,
    [OwnFault.publish]: `Runs in ${p.region} cannot publish their verdicts to CloudWatch in the home region ${p.homeRegion} (PutMetricData denied, throttled past the run's deadline, a 5xx, or no answer: the home region may be impaired). This region is silent for the paging alarms, which cannot see it from ${p.homeRegion}. For the canary owner. Look at "mcp-canary publish failed" lines in ${logs} in ${p.region}; check the run role's cloudwatch:PutMetricData and ${p.homeRegion}'s health.`,
    [OwnFault.credentials]: `Credential reads of the runs in ${p.region} fail (throttled, a 5xx, no answer, or denied). Runs are served the last good value for up to an hour; a target with none is not judged and records no run. For the canary owner. Look at "mcp-canary run skipped" lines (reason "credentials") in ${logs} in ${p.region}; a ThrottlingException means too many reads for the store's quota (docs/deploy.md, Credentials at scale).`,
  };
  const period = Duration.seconds(p.periodSeconds);
  for (const fault of Object.values(OwnFault)) {
    ownerAlarm(scope, `OwnFault-${fault}`, {
      alarmName: ownFaultAlarmName(p.names, fault),
      description: described[fault],
      metric: new Metric({
        namespace: p.namespace,
        metricName: OWN_FAULTS_METRIC,
        dimensionsMap: { [OwnFaultDimension.service]: OWN_FAULTS_SERVICE, [OwnFaultDimension.fault]: fault },
        statistic: 'Sum',
        period,
      }),
      periods: OWN_FAULT_PERIODS,
      outOf: OWN_FAULT_OUT_OF,
      ownerTopicArn: p.ownerTopicArn,
    });
  }
}
