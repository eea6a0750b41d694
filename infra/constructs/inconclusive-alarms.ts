/**
 * The canary owner's word that the canary cannot judge: one alarm per schedule rate of the fleet, in the
 * home region, on the fleet-level `Inconclusive` metric every probe region's runs write (its `Rate`
 * dimension; functions/io/publish/metrics.ts `inconclusiveData`). `<fleet>/canary/inconclusive-<rate>`
 * goes to ALARM after some target's run was inconclusive in N periods of that rate in a row (N = the
 * fleet's failureThreshold), in any of its regions, and to OK when a period passes without one.
 *
 * Why it matters more than a ticket: a target whose regions cannot judge it (its credential read or
 * config fails there) can neither open nor resolve a page from those regions (alarm-math.ts), so an
 * open page stays open and a new outage may page later or not at all while it lasts. The target owner's
 * ticket says "inconclusive"; this tells the one who can fix the canary, within minutes.
 *
 * Fleet-level, not per target: the owner needs to know that the canary cannot judge, and the run log
 * (the saved query `inconclusive-runs` in each probe region) says which targets, where and why. Per rate,
 * so "N in a row" counts that rate's periods. One standard alarm and one custom metric per rate: about
 * $0.40 a month for a fleet on one rate, where an alarm per target would cost $0.10 per target·month.
 *
 * Missing data is `notBreaching`: a period without an inconclusive verdict writes no datum at all, so a
 * missing point is "none". A late datum does not flap it: CloudWatch then evaluates the newest N existing
 * points of its N + 2, which are the earlier inconclusive periods.
 */
import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { Dimension, MetricName, rateSlug } from '../../functions/base/common/run-record.ts';
import { every } from '../../functions/base/common/alarm-words.ts';
import type { FleetNames } from '../plan/names.ts';
import { ownerAlarm } from './owner-alarm.ts';

export interface InconclusiveAlarmsProps {
  readonly names: FleetNames;
  readonly namespace: string;
  /** Each distinct run period of the fleet's targets. */
  readonly periodsSeconds: readonly number[];
  /** N: inconclusive periods in a row. */
  readonly runsInARow: number;
  readonly ownerTopicArn: string;
}

/** The alarm names, by rate: what the alarms are called and what the tests and docs look for. */
export function inconclusiveAlarmName(names: FleetNames, periodSeconds: number): string {
  return names.canaryAlarm(`inconclusive-${rateSlug(periodSeconds)}`);
}

export function alarmOnInconclusiveVerdicts(scope: Construct, props: InconclusiveAlarmsProps): void {
  const queries = `mcp-canary/${props.names.fleet}/inconclusive-runs`;
  for (const periodSeconds of [...new Set(props.periodsSeconds)].sort((a, b) => a - b)) {
    const rate = rateSlug(periodSeconds);
    ownerAlarm(scope, `Inconclusive-${rate}`, {
      alarmName: inconclusiveAlarmName(props.names, periodSeconds),
      description: [
        `The canary could not judge some target (inconclusive) in ${props.runsInARow} run(s) in a row (one run ${every(periodSeconds)}): its own credential read, config, or a tool it must not call failed, in at least one probe region. For the canary owner.`,
        'While it lasts, those regions can neither open nor resolve that target’s page: an open page stays open, and a new outage pages only from the regions that still judge.',
        `First steps: 1) run the saved Logs Insights query ${queries} in each probe region: the targets, the region and the detail; 2) a credential read failing in every region at once points at the one parameter or secret they all read (its region, its policy, its throughput quota).`,
      ].join('\n'),
      metric: new Metric({
        namespace: props.namespace,
        metricName: MetricName.inconclusive,
        dimensionsMap: { [Dimension.rate]: rate },
        period: Duration.seconds(periodSeconds),
        statistic: 'Sum',
      }),
      ownerTopicArn: props.ownerTopicArn,
      periods: props.runsInARow,
    });
  }
}
