/**
 * The alarms of one target, in the home region. Functions stay stateless: these alarms hold the
 * "N runs in a row" state, and their actions go straight to SNS, so no function of ours sits on the
 * paging path. Each alarm combines the target's regions with metric math, so a target costs three
 * alarms however many regions probe it.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { AlarmKind, describeAlarm } from '../../functions/brief/alarm-words.ts';
import { Dimension, MetricName } from '../../functions/publish/schema.ts';
import type { FleetNames } from '../names.ts';
import { defaultQuorum } from '../../functions/config/fleet.ts';
import { failingRegions, metricId, reportingRegions, unhealthyRegions } from './alarm-math.ts';

/** Pages: the target fails in at least `minFailingRegions` regions for `runsInARow` runs in a row. */
export interface FailingRegionsThreshold {
  /** The quorum: regions failing in the same period. */
  readonly minFailingRegions: number;
  /** N: datapoints to alarm = evaluation periods. */
  readonly runsInARow: number;
}

/**
 * Tickets: at least `minUnhealthyRegions` regions are not healthy in each of `runsInARow` runs. A run
 * that pages counts here too: otherwise a target failing every run, in one region or two by turns,
 * would neither page (never a quorum N times in a row) nor ticket.
 */
export interface UnhealthyThreshold {
  /** Regions not healthy (degraded, inconclusive or failed) in the same period. */
  readonly minUnhealthyRegions: number;
  readonly runsInARow: number;
}

/** The canary owner: fewer than `minReportingRegions` regions reported a run, `runsInARow` periods in a row. */
export interface MissingRunsThreshold {
  readonly minReportingRegions: number;
  readonly runsInARow: number;
}

/** Alarm knobs keyed by severity; an absent key means no such alarm. */
export interface TargetAlarmThresholds {
  /** @default - no critical alarm */
  readonly [AlarmKind.critical]?: FailingRegionsThreshold;
  /** @default - no warning alarm */
  readonly [AlarmKind.warning]?: UnhealthyThreshold;
  /** @default - no dead-man alarm */
  readonly [AlarmKind.deadMan]?: MissingRunsThreshold;
}

export interface TargetAlarmsProps {
  readonly names: FleetNames;
  readonly namespace: string;
  readonly target: string;
  readonly url: string;
  readonly regions: readonly string[];
  /** The run period: one datapoint per run. */
  readonly period: Duration;
  /** @default - the description says none is set */
  readonly runbookUrl?: string;
  readonly thresholds: TargetAlarmThresholds;
  /** SNS topic ARN per severity, for ALARM and OK alike (so an incident resolves under the same name). @default - no action */
  readonly topicArns?: Partial<Record<AlarmKind, string>>;
}

export class TargetAlarms extends Construct {
  readonly alarms: Partial<Record<AlarmKind, Alarm>> = {};

  constructor(scope: Construct, id: string, private readonly props: TargetAlarmsProps) {
    super(scope, id);
    const { thresholds: t } = props;
    if (t.critical) {
      this.add(AlarmKind.critical, failingRegions(props.regions), 'Regions failing', 'Maximum', {
        threshold: t.critical.minFailingRegions,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        runsInARow: t.critical.runsInARow,
        // A region with no run is not a failing region: the dead-man alarm owns missing runs.
        treatMissingData: TreatMissingData.NOT_BREACHING,
        quorum: t.critical.minFailingRegions,
      });
    }
    if (t.warning) {
      this.add(AlarmKind.warning, unhealthyRegions(props.regions), 'Regions not healthy', 'Maximum', {
        threshold: t.warning.minUnhealthyRegions,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        runsInARow: t.warning.runsInARow,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        // The description says how many failing regions page instead.
        quorum: t.critical?.minFailingRegions ?? defaultQuorum(props.regions.length),
      });
    }
    const d = t[AlarmKind.deadMan];
    if (d) {
      this.add(AlarmKind.deadMan, reportingRegions(props.regions), 'Regions that reported a run', 'SampleCount', {
        threshold: d.minReportingRegions,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        runsInARow: d.runsInARow,
        // No data at all (every region silent) is the loudest case of a dead canary.
        treatMissingData: TreatMissingData.BREACHING,
        quorum: d.minReportingRegions,
      });
    }
  }

  private add(kind: AlarmKind, expression: string, label: string, statistic: 'Maximum' | 'SampleCount', knobs: {
    threshold: number; comparisonOperator: ComparisonOperator; runsInARow: number; treatMissingData: TreatMissingData; quorum: number;
  }): void {
    const { props } = this;
    const usingMetrics = Object.fromEntries(props.regions.map((region) => [metricId(region), new Metric({
      namespace: props.namespace,
      metricName: MetricName.outcome,
      dimensionsMap: { [Dimension.target]: props.target, [Dimension.probeRegion]: region },
      statistic,
      period: props.period,
    })]));
    const alarm = new Alarm(this, kindId(kind), {
      alarmName: props.names.alarm(props.target, kind),
      alarmDescription: describeAlarm({
        kind,
        target: props.target,
        url: props.url,
        regions: props.regions,
        quorum: knobs.quorum,
        failureThreshold: knobs.runsInARow,
        periodSeconds: props.period.toSeconds(),
        runbookUrl: props.runbookUrl,
        runLogGroup: props.names.runLogGroup,
      }),
      metric: new MathExpression({ expression, usingMetrics, label, period: props.period }),
      threshold: knobs.threshold,
      comparisonOperator: knobs.comparisonOperator,
      evaluationPeriods: knobs.runsInARow,
      datapointsToAlarm: knobs.runsInARow,
      treatMissingData: knobs.treatMissingData,
    });
    const topicArn = props.topicArns?.[kind];
    if (topicArn) {
      const action: IAlarmAction = { bind: () => ({ alarmActionArn: topicArn }) };
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms[kind] = alarm;
  }
}

function kindId(kind: AlarmKind): string {
  return kind === AlarmKind.deadMan ? 'DeadMan' : kind[0]!.toUpperCase() + kind.slice(1);
}
