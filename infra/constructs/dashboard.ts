/**
 * One dashboard per fleet, in the home region, the same size for 3 targets or 3,000, and cheap to leave
 * open: the targets with the most failing regions from Metrics Insights over the one `Verdict` metric per
 * target (grouped, not one line per target); runs reported and latency per probe region from the
 * fleet-level `RunDuration` metric (one per region); and the critical alarms for a fleet small enough
 * to list them.
 *
 * No Logs Insights widget: a widget reruns its query over the whole dashboard range on every refresh and
 * bills every GB it scans ($0.005/GB). A wall screen on a 1-minute refresh with three such widgets per
 * region scanned ~143 MB a refresh at 100 targets × 3 regions ($30 a month) and ~2.4 GB at 1,000 × 5
 * ($500). Those queries are saved in each probe region instead (run-queries.ts) and linked from here:
 * they cost only when someone runs one.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { AlarmKind } from '../../functions/base/common/alarm-words.ts';
import { Dimension, MetricName } from '../../functions/base/common/run-record.ts';
import type { FleetNames } from '../plan/names.ts';
import { runQueries } from './run-queries.ts';

/** An alarm status widget lists at most 100 alarms. */
export const MAX_DASHBOARD_ALARMS = 100;
/** The range the dashboard opens with (the console's own default is 3 hours too). */
export const DASHBOARD_RANGE = Duration.hours(3);
const WIDTH = 24;

export interface FleetDashboardProps {
  readonly names: FleetNames;
  readonly namespace: string;
  readonly probeRegions: readonly string[];
  readonly targets: readonly string[];
  /** Graph period. @default - 5 minutes */
  readonly period?: Duration;
}

export class FleetDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: FleetDashboardProps) {
    super(scope, id);
    const { names, namespace } = props;
    const period = props.period ?? Duration.minutes(5);
    const schema = `SCHEMA("${namespace}", ${Dimension.target})`;
    const insights = (query: string, label: string) => new MathExpression({ expression: query, usingMetrics: {}, label, period });

    const rows: IWidget[][] = [];
    rows.push([
      new TextWidget({
        markdown: [
          `# mcp-canary ${names.fleet}`,
          `${props.targets.length} target(s) probed from ${props.probeRegions.join(', ')}; metric \`${MetricName.verdict}\` in namespace \`${namespace}\`, run records in \`${names.runLogGroup}\` in each region.`,
          `Each region's run adds one datapoint to its target's \`${MetricName.verdict}\`: Sum's whole part = failed regions, its next ten binary places = regions that could not judge (inconclusive), anything above 0 = a ticket; SampleCount = regions that reported.`,
        ].join('\n\n'),
        width: WIDTH,
        height: 3,
      }),
    ]);
    const byRegion = (statistic: string, label: (region: string) => string) =>
      props.probeRegions.map(
        (region) =>
          new Metric({
            namespace,
            metricName: MetricName.runDuration,
            dimensionsMap: { [Dimension.probeRegion]: region },
            statistic,
            period,
            label: label(region),
          }),
      );
    // Runs reported come from the per-region metric (R metrics a refresh), not a Metrics Insights COUNT
    // over every target's metric: the same line, summed, at a fraction of the metrics each refresh reads.
    rows.push([
      new GraphWidget({
        title: 'Targets with the most failed runs, all regions (Sum of Verdict per graph period, top 10)',
        left: [insights(`SELECT SUM(${MetricName.verdict}) FROM ${schema} GROUP BY ${Dimension.target} ORDER BY SUM() DESC LIMIT 10`, '')],
        leftYAxis: { min: 0 },
        width: WIDTH / 2,
      }),
      new GraphWidget({
        title: 'Runs reported per probe region (a drop is a dead canary there)',
        left: byRegion('SampleCount', (r) => r),
        leftYAxis: { min: 0 },
        width: WIDTH / 2,
      }),
    ]);
    rows.push([
      new GraphWidget({
        title: 'Run duration per probe region (ms, p99 and worst run)',
        left: [...byRegion('p99', (r) => `${r} p99`), ...byRegion('Maximum', (r) => `${r} max`)],
        leftYAxis: { min: 0 },
        width: WIDTH,
      }),
    ]);
    const queries = runQueries(names);
    rows.push([
      new TextWidget({
        markdown: [
          '### On demand: the run records (Logs Insights, billed per GB scanned only when you run one)',
          `Saved queries in each probe region, over \`${names.runLogGroup}\`: ${queries.map((q) => `**${q.name}** (${q.title})`).join(', ')}.`,
          props.probeRegions
            .map((r) => `[${r}](https://${r}.console.aws.amazon.com/cloudwatch/home?region=${r}#logsV2:logs-insights)`)
            .join(' · '),
        ].join('\n\n'),
        width: WIDTH,
        height: 3,
      }),
    ]);
    const listed = [...props.targets].sort().slice(0, MAX_DASHBOARD_ALARMS);
    if (listed.length > 0) {
      const stack = Stack.of(this);
      rows.push([
        new AlarmStatusWidget({
          title:
            props.targets.length > listed.length
              ? `Critical alarms (first ${listed.length} of ${props.targets.length} targets)`
              : 'Critical alarms',
          alarms: listed.map((t, i) =>
            Alarm.fromAlarmArn(
              this,
              `Critical${i}`,
              stack.formatArn({
                service: 'cloudwatch',
                resource: 'alarm',
                resourceName: names.alarm(t, AlarmKind.critical),
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            ),
          ),
          width: WIDTH,
          height: Math.min(12, 2 + Math.ceil(listed.length / 4)),
        }),
      ]);
    }
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: names.dashboard, defaultInterval: DASHBOARD_RANGE, widgets: rows });
  }
}
