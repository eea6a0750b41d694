/**
 * The SLO burn alarms of the targets whose `slo.burnAlarms` is on (infra/plan/burn.ts plans them), in
 * home-region stacks of their own (`<fleet>-slo-burn`, split by size like the alarm stacks), so turning
 * them on or off never moves a paging alarm. Per target: eight metric alarms (a long and a short window per
 * tier, no actions) and two composite alarms, the only ones that tell anyone:
 * - `<fleet>/<target>/slo-burn-page` = (1 h AND 5 min) OR (6 h AND 30 min) → the pages topic;
 * - `<fleet>/<target>/slo-burn-ticket` = (1 day AND 2 h) OR (3 days AND 6 h) → the tickets topic (3 days
 *   read as one for a period under an hour: infra/plan/burn.ts says why).
 * Each window reads two metrics into the paging expression, far from CloudWatch's 10 per metric-math alarm
 * (infra/quotas checks it).
 * The rules the other alarms keep: each window reads the paging alarm's expression over the same metric,
 * and a period it leaves undetermined (regions inconclusive or silent, or a late one) is neither a bad
 * period nor a good one: `ignore` (windowAlarm says why), a new alarm starts INSUFFICIENT_DATA and a deploy
 * tells no one of an old burn (the short window must be burning now), ALARM and OK go to the same topic,
 * and maintenance windows mute both composites (infra/plan/placement.ts names them in the mute rules).
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnAlarm, CfnCompositeAlarm, ComparisonOperator, TreatMissingData, type CfnCompositeAlarmProps } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { Dimension, MetricName } from '../../functions/base/common/run-record.ts';
import { every } from '../../functions/base/common/alarm-words.ts';
import { sloOf, type Slo } from '../../functions/base/config/schema/slo.ts';
import { planBurn, type BurnAlarmPlan, type TargetBurnPlan } from '../plan/burn.ts';
import type { FleetNames } from '../plan/names.ts';
import type { FleetPlan, TargetPlan } from '../plan/plan.ts';
import { splitBySize } from '../plan/stack-split.ts';
import { STACK_BUDGET } from '../plan/template-size.ts';
import { FAILING, failingRegions, REPORTS } from './alarm-math.ts';
import { topicArn } from './topics.ts';

/** Eight window alarms and two composites per target. */
export const BURN_ALARMS_PER_TARGET = 10;
/**
 * A generous size per target, so a split happens before CloudFormation's limit: 29.2 KB measured at the
 * longest (64-character names, a 255-character namespace, ten regions, URLs filling the descriptions; one-space
 * indentation), most of it the paging expression each of the eight windows carries (test/unit/infra/template-size.test.ts).
 */
export const BURN_BYTES_PER_TARGET = 32_000;

export interface BurnTarget {
  readonly target: TargetPlan;
  readonly slo: Slo;
  readonly plan: TargetBurnPlan;
}

/** The targets with burn alarms on, planned. */
export function burnTargets(plan: FleetPlan, names: FleetNames): BurnTarget[] {
  return plan.targets.flatMap((t) => {
    const slo = sloOf(plan.fleet, plan.fleet.targets[t.index]!);
    return slo?.burnAlarms ? [{ target: t, slo, plan: planBurn(names, t, slo, plan.failureThreshold) }] : [];
  });
}

/** Burn targets by stack id, split by size on the target name (stack-split.ts: a target stays where it is). */
export function placeBurn(targets: readonly BurnTarget[]): Map<number, BurnTarget[]> {
  return splitBySize(targets, {
    key: (t) => t.target.name,
    size: () => ({ resources: BURN_ALARMS_PER_TARGET, bytes: BURN_BYTES_PER_TARGET }),
    minDepth: 0,
    budget: () => ({ resources: 480, bytes: STACK_BUDGET.bytes }),
    // Cannot happen: one target's burn alarms (BURN_ALARMS_PER_TARGET, BURN_BYTES_PER_TARGET) always fit an empty stack's budget.
    tooLarge: (t) => new Error(`the burn alarms of ${t.target.name} do not fit one stack`),
  });
}

export interface BurnAlarmStackProps extends StackProps {
  readonly names: FleetNames;
  readonly namespace: string;
  readonly targets: readonly BurnTarget[];
}

export class BurnAlarmStack extends Stack {
  readonly composites: CfnCompositeAlarm[] = [];

  constructor(scope: Construct, id: string, props: BurnAlarmStackProps) {
    super(scope, id, props);
    const topic = (kind: 'pages' | 'tickets') => topicArn(this, props.names.topic(kind));
    for (const b of props.targets) {
      const scopeOf = new Construct(this, b.target.name);
      const windows = new Map<string, CfnAlarm>();
      for (const tier of b.plan.tiers) {
        for (const [which, w] of [
          ['Long', tier.long],
          ['Short', tier.short],
        ] as const) {
          windows.set(w.name, windowAlarm(scopeOf, `${tier.tier.id}-${which}`, props.namespace, b, tier, w));
        }
      }
      const composite = (id: string, name: string, tiers: readonly BurnAlarmPlan[], kind: 'pages' | 'tickets', what: string) => {
        const rule = tiers.map((t) => `(ALARM("${t.long.name}") AND ALARM("${t.short.name}"))`).join(' OR ');
        const alarm = new CfnCompositeAlarm(scopeOf, id, {
          alarmName: name,
          alarmRule: rule,
          alarmDescription: describeBurn(b, tiers, what),
          alarmActions: [topic(kind)],
          okActions: [topic(kind)],
          ...(kind === 'pages' ? pageSuppression(props.names, b) : {}),
        });
        for (const t of tiers) for (const w of [t.long, t.short]) alarm.addResourceDependency(windows.get(w.name)!);
        this.composites.push(alarm);
      };
      composite(
        'Page',
        b.plan.pageName,
        b.plan.tiers.filter((t) => t.tier.severity === 'page'),
        'pages',
        'fast burn',
      );
      composite(
        'Ticket',
        b.plan.ticketName,
        b.plan.tiers.filter((t) => t.tier.severity === 'ticket'),
        'tickets',
        'slow burn',
      );
    }
  }
}

/**
 * A hard outage fires the paging alarm and the fast burn within a few periods of each other: on-call
 * would get two pages for one outage. The page composite's actions are suppressed while the target's
 * critical alarm is in ALARM (CloudWatch's ActionsSuppressor): it waits up to N + 2 periods and a
 * minute for the critical alarm to follow (the critical alarm pages by run N + 1, and CloudWatch
 * evaluates a minute late), and stays quiet for the fast tiers' longest short window after the critical
 * alarm resolves, while that window still holds the outage. A burn with no page (an endpoint failing on
 * and off, never N in a row) is exactly what it still pages for.
 */
function pageSuppression(
  names: FleetNames,
  b: BurnTarget,
): Pick<CfnCompositeAlarmProps, 'actionsSuppressor' | 'actionsSuppressorWaitPeriod' | 'actionsSuppressorExtensionPeriod'> {
  const fastShort = Math.max(...b.plan.tiers.filter((t) => t.tier.severity === 'page').map((t) => t.tier.shortSeconds));
  return {
    actionsSuppressor: names.alarm(b.target.name, 'critical'),
    actionsSuppressorWaitPeriod: (b.plan.runsInARow + 2) * b.target.periodSeconds + 60,
    actionsSuppressorExtensionPeriod: fastShort,
  };
}

function windowAlarm(
  scope: Construct,
  id: string,
  namespace: string,
  b: BurnTarget,
  tier: BurnAlarmPlan,
  w: BurnAlarmPlan['long'],
): CfnAlarm {
  const period = Duration.seconds(b.target.periodSeconds).toSeconds();
  const stat = (metricId: string, s: 'Sum' | 'SampleCount'): CfnAlarm.MetricDataQueryProperty => ({
    id: metricId,
    metricStat: {
      metric: { dimensions: [{ name: Dimension.target, value: b.target.name }], metricName: MetricName.verdict, namespace },
      period,
      stat: s,
    },
    returnData: false,
  });
  return new CfnAlarm(scope, id, {
    alarmName: w.name,
    alarmDescription: `Window alarm of ${b.plan.pageName.split('/').slice(0, 2).join('/')}'s SLO burn (${tier.tier.id}): ${w.datapointsToAlarm} of ${w.evaluationPeriods} periods with a quorum (${b.target.quorum} of ${b.target.regions.length} regions) failing${w.floored ? ` (the paging rule's N: one bad period is already over this window's share, so it cannot tell the burn rate from a blip)` : ''}. No actions: the composite tells.\nRegions: ${b.target.regions.join(', ')}`,
    metrics: [
      {
        expression: failingRegions(b.target.regions.length, b.target.quorum),
        id: 'expr_1',
        label: 'Regions failing or unable to judge (where the page is decided)',
        returnData: true,
      },
      stat(FAILING, 'Sum'),
      stat(REPORTS, 'SampleCount'),
    ],
    threshold: b.target.quorum,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: w.evaluationPeriods,
    datapointsToAlarm: w.datapointsToAlarm,
    // An undetermined period (regions that cannot judge, silent or late) is neither bad nor good: `ignore`
    // evaluates the newest periods that were judged and keeps the state when none were. Bad would page the
    // target owner for the canary's own fault; good (`notBreaching`, the first release) let a canary that
    // cannot judge resolve a burn page and dilute a window with periods nobody judged. The canary owner
    // hears of it from the inconclusive and dead-man alarms.
    treatMissingData: TreatMissingData.IGNORE,
  });
}

function describeBurn(b: BurnTarget, tiers: readonly BurnAlarmPlan[], what: string): string {
  const windows = tiers
    .map(
      (t) =>
        `${t.rate.toFixed(1)}x over ${span(t.longSeconds)}${t.longSeconds < t.tier.longSeconds ? ` (the workbook's ${span(t.tier.longSeconds)}: CloudWatch's limit)` : ''} and ${span(t.tier.shortSeconds)} (${Math.round((t.tier.budgetShare * t.longSeconds * 1000) / t.tier.longSeconds) / 10} % of the budget)`,
    )
    .join('; or ');
  const text = [
    `${b.target.name} is spending its error budget (${what}): objective ${b.slo.objective} % over ${b.slo.windowDays} days, burning at ${windows}. A bad period is one with at least ${b.target.quorum} of ${b.target.regions.length} regions failing (one run ${every(b.target.periodSeconds)}).`,
    `Endpoint: ${b.target.url}`,
    `Regions: ${b.target.regions.join(', ')}`,
    `Runbook: ${b.target.runbookUrl ?? 'none set (add runbookUrl to the fleet config)'}`,
    'First steps: 1) mcp-canary report --config <file> --days 1 shows where the budget went; 2) an endpoint that fails on and off never pages by N in a row: look for flapping.',
  ].join('\n');
  return text.slice(0, 1024);
}

function span(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400} day(s)` : seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds / 60} min`;
}
