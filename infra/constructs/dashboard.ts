/**
 * One dashboard per fleet, in the home region, the same size for 3 targets or 3,000: failing regions and
 * reported runs from Metrics Insights over the one `Verdict` metric per target (grouped, not one line
 * per target); latency, outcomes and failures by class per region from each region's run log (Logs
 * Insights reads in that region: the metric has no region dimension, the run records do); and the
 * critical alarms for a fleet small enough to list them.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  TextWidget,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { AlarmKind } from '../../functions/brief/alarm-words.ts';
import { Dimension, MetricName, RUN_RECORD_MESSAGE, TICKET_WEIGHT } from '../../functions/publish/schema.ts';
import { Outcome } from '../../functions/verdict.ts';
import type { FleetNames } from '../names.ts';

/** An alarm status widget lists at most 100 alarms. */
export const MAX_DASHBOARD_ALARMS = 100;
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
          `Each region's run adds 1 (failed), ${TICKET_WEIGHT} (degraded, inconclusive or warned) or 0 (healthy) to its target's \`${MetricName.verdict}\`: Sum ≈ failing regions, SampleCount = regions that reported.`,
        ].join('\n\n'),
        width: WIDTH,
        height: 3,
      }),
    ]);
    rows.push([
      new GraphWidget({
        title: 'Targets with the most failed runs, all regions (Sum of Verdict per graph period, top 10)',
        left: [insights(`SELECT SUM(${MetricName.verdict}) FROM ${schema} GROUP BY ${Dimension.target} ORDER BY SUM() DESC LIMIT 10`, '')],
        leftYAxis: { min: 0 },
        width: WIDTH / 2,
      }),
      new GraphWidget({
        title: 'Runs reported, all targets and regions (a drop is a dead canary)',
        left: [insights(`SELECT COUNT(${MetricName.verdict}) FROM ${schema}`, 'runs')],
        leftYAxis: { min: 0 },
        width: WIDTH / 2,
      }),
    ]);
    for (const region of props.probeRegions) {
      rows.push([
        new LogQueryWidget({
          title: `${region}: latency (ms, average and worst run)`,
          region,
          logGroupNames: [names.runLogGroup],
          queryLines: [
            `filter message = "${RUN_RECORD_MESSAGE}"`,
            'stats avg(verdict.durationMs) as avg_ms, max(verdict.durationMs) as max_ms by bin(5m)',
          ],
          view: LogQueryVisualizationType.LINE,
          width: WIDTH / 3,
        }),
        new LogQueryWidget({
          title: `${region}: runs by outcome`,
          region,
          logGroupNames: [names.runLogGroup],
          queryLines: [`filter message = "${RUN_RECORD_MESSAGE}"`, 'stats count(*) as runs by verdict.outcome, bin(5m)'],
          view: LogQueryVisualizationType.STACKEDAREA,
          width: WIDTH / 3,
        }),
        new LogQueryWidget({
          title: `${region}: failures by class`,
          region,
          logGroupNames: [names.runLogGroup],
          queryLines: [
            `filter message = "${RUN_RECORD_MESSAGE}" and verdict.outcome = "${Outcome.failed}"`,
            'stats count(*) as runs, latest(verdict.detail) as last_detail by verdict.failure, target',
            'sort runs desc',
            'limit 25',
          ],
          view: LogQueryVisualizationType.TABLE,
          width: WIDTH / 3,
        }),
      ]);
    }
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
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: names.dashboard, widgets: rows });
  }
}
