/**
 * The alarms of one target, in the home region. Functions stay stateless: these alarms hold the
 * "N runs in a row" state, and their actions go straight to SNS, so no function of ours sits on the
 * paging path. All three read the target's one `Verdict` metric, so a target costs one custom metric
 * and five alarm metrics however many regions probe it.
 *
 * When each alarm speaks (N = runs in a row, k = quorum, R = regions; see alarm-math.ts for why):
 * - critical (pages): k of R regions fail — or the same share of the regions that could judge, when some
 *   could not — in N periods in a row, counting only periods whose verdict has arrived; a run that is
 *   late for its first evaluation is counted at the next one, so the page comes after run N or N+1, never
 *   before N. It resolves after a period in which more than R − k regions judged it not failing. Missing
 *   data is `ignore`: a canary that falls silent or cannot judge keeps an open page open.
 * - warning (tickets): some region not healthy (or warning) N periods in a row; same rules. A gateway's
 *   backend's leaves out the runs that could not judge (the gateway down: the gateway's page carries it).
 * - dead-man (canary owner): fewer than R regions reported in each of M periods in a row (M = max(N, 3)),
 *   or no region reported at all for the alarm's whole evaluation range: `missing` data then makes it
 *   INSUFFICIENT_DATA, which tells the owner too. M ≥ 3 is the margin for documented start delays: a run
 *   starts anywhere in its minute (Scheduler) and, throttled, up to its 60 s maximum event age later
 *   (Lambda), then takes up to its budget, so the newest TWO periods may both be incomplete when
 *   evaluated; a third short one in a row is a region that misses runs. (The first release's M of M+1
 *   with M = 2 told the owner about healthy runs that Lambda had throttled.) A new
 *   alarm starts in INSUFFICIENT_DATA and stays there until runs arrive, so a deploy pages and alarms
 *   no one (the first runs send each alarm's one OK, which pagers ignore for an incident they lack).
 */
import type { Duration } from 'aws-cdk-lib';
import { CfnAlarm, ComparisonOperator, TreatMissingData, type CfnAlarmProps } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { AlarmKind, deadManRuns, describeAlarm } from '../../functions/base/common/alarm-words.ts';
import { Dimension, MetricName } from '../../functions/base/common/run-record.ts';
import type { FleetNames } from '../plan/names.ts';
import { FAILING, failingRegions, judgedTicketRegions, REPORTS, ticketRegions } from './alarm-math.ts';

/** Pages: the target fails in at least `minFailingRegions` regions (or that share of those that judge) for `runsInARow` runs in a row. */
export interface FailingRegionsThreshold {
  /** The quorum: regions failing in the same period, of all R; scaled to the regions that judge when some cannot. */
  readonly minFailingRegions: number;
  /** N: determined periods in a row. */
  readonly runsInARow: number;
}

/** Tickets: some region is not healthy (degraded, inconclusive, failed, or warned) in `runsInARow` runs in a row. */
export interface UnhealthyThreshold {
  readonly runsInARow: number;
}

/** The canary owner: a region missed runs in max(`runsInARow`, 3) periods in a row, or every region is silent. */
export interface MissingRunsThreshold {
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
  /** A gateway's backend: the gateway's name (the page names both). @default - a target of its own */
  readonly gateway?: string;
  readonly url: string;
  readonly regions: readonly string[];
  /** The run period: one datapoint per run and region. */
  readonly period: Duration;
  /** @default - the description says none is set */
  readonly runbookUrl?: string;
  readonly thresholds: TargetAlarmThresholds;
  /** SNS topic per severity, for ALARM and OK alike (so an incident resolves under the same name). @default - no action */
  readonly topics?: Partial<Record<AlarmKind, ITopic>>;
}

/**
 * Rendered as `CfnAlarm` with the properties the `Alarm` L2 would write (same logical ids, same
 * template, held by the snapshot test): at 15,000 alarms the L2's metric objects, token resolution and
 * action bindings were a third of the synth time, for nothing these alarms use.
 */
export class TargetAlarms extends Construct {
  readonly alarms: Partial<Record<AlarmKind, CfnAlarm>> = {};

  constructor(
    scope: Construct,
    id: string,
    private readonly props: TargetAlarmsProps,
  ) {
    super(scope, id);
    const { thresholds: t, regions } = props;
    const quorum = t.critical?.minFailingRegions ?? regions.length;
    const period = props.period.toSeconds();
    const verdicts = (metricId: string, stat: 'Sum' | 'SampleCount'): CfnAlarm.MetricDataQueryProperty => ({
      id: metricId,
      metricStat: {
        metric: {
          dimensions: [{ name: Dimension.target, value: props.target }],
          metricName: MetricName.verdict,
          namespace: props.namespace,
        },
        period,
        stat,
      },
      returnData: false,
    });
    const math = (expression: string, label: string): Pick<CfnAlarmProps, 'metrics'> => ({
      metrics: [{ expression, id: 'expr_1', label, returnData: true }, verdicts(FAILING, 'Sum'), verdicts(REPORTS, 'SampleCount')],
    });

    if (t.critical) {
      this.add(
        AlarmKind.critical,
        {
          ...math(failingRegions(regions.length, quorum), 'Regions failing or unable to judge (where the page is decided)'),
          threshold: quorum,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: t.critical.runsInARow,
          datapointsToAlarm: t.critical.runsInARow,
          // Undetermined, silent or unjudged periods keep the state: a canary that cannot judge never resolves a page.
          treatMissingData: TreatMissingData.IGNORE,
        },
        t.critical.runsInARow,
        quorum,
      );
    }
    if (t.warning) {
      this.add(
        AlarmKind.warning,
        {
          // A backend's runs the gateway's outage left unjudged are the gateway's page, not a ticket each.
          ...(props.gateway
            ? math(judgedTicketRegions(regions.length), 'Regions failed, degraded or warned (where already known)')
            : math(ticketRegions(regions.length), 'Regions needing a ticket (where already known)')),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: t.warning.runsInARow,
          datapointsToAlarm: t.warning.runsInARow,
          treatMissingData: TreatMissingData.IGNORE,
        },
        t.warning.runsInARow,
        quorum,
      );
    }
    const d = t[AlarmKind.deadMan];
    if (d) {
      const m = deadManRuns(d.runsInARow);
      this.add(
        AlarmKind.deadMan,
        {
          dimensions: [{ name: Dimension.target, value: props.target }],
          metricName: MetricName.verdict,
          namespace: props.namespace,
          period,
          statistic: 'SampleCount',
          threshold: regions.length,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: m,
          datapointsToAlarm: m,
          // No data at all is INSUFFICIENT_DATA (an action of its own, below), never ALARM: a new alarm
          // has no data either, and must not tell the owner anything on deploy.
          treatMissingData: TreatMissingData.MISSING,
        },
        m,
        quorum,
      );
    }
  }

  private add(
    kind: AlarmKind,
    knobs: Omit<CfnAlarmProps, 'alarmName' | 'alarmDescription' | 'alarmActions' | 'okActions' | 'insufficientDataActions'>,
    runsInARow: number,
    quorum: number,
  ): void {
    const { props } = this;
    const topic = props.topics?.[kind]?.topicArn;
    // `<target>/<Kind>/Resource`: the path (and so the logical id) the Alarm L2 gave these alarms.
    const alarm = new CfnAlarm(new Construct(this, kindId(kind)), 'Resource', {
      alarmName: props.names.alarm(props.target, kind),
      alarmDescription: describeAlarm({
        kind,
        target: props.target,
        gateway: props.gateway,
        url: props.url,
        regions: props.regions,
        quorum,
        failureThreshold: runsInARow,
        periodSeconds: props.period.toSeconds(),
        runbookUrl: props.runbookUrl,
        runLogGroup: props.names.runLogGroup,
      }),
      ...knobs,
      // ALARM and OK on the same topic, so an incident resolves under the alarm that opened it; every
      // region silent is the dead-man's loudest case and arrives as INSUFFICIENT_DATA.
      ...(topic ? { alarmActions: [topic], okActions: [topic] } : {}),
      ...(topic && kind === AlarmKind.deadMan ? { insufficientDataActions: [topic] } : {}),
    });
    this.alarms[kind] = alarm;
  }
}

function kindId(kind: AlarmKind): string {
  return kind === AlarmKind.deadMan ? 'DeadMan' : kind[0]!.toUpperCase() + kind.slice(1);
}
