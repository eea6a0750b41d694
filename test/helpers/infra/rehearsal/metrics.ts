/**
 * The metrics the deployed alarms read, taken from the alarms themselves (DescribeAlarms: each metric-math
 * alarm's MetricStat queries, or a single-metric alarm's namespace, name, dimensions, statistic and
 * period), and what CloudWatch holds there (GetMetricData, the same query an alarm evaluates).
 */
import {
  GetDashboardCommand,
  ListDashboardsCommand,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  type Statistic,
  ListMetricsCommand,
  type CloudWatchClient,
  type MetricAlarm,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';

export interface AlarmRead {
  readonly alarmName: string;
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly stat: string;
  readonly periodSeconds: number;
}

export interface Datapoint {
  readonly at: string;
  readonly value: number;
}

export async function deployedAlarms(cw: CloudWatchClient): Promise<MetricAlarm[]> {
  const alarms: MetricAlarm[] = [];
  let token: string | undefined;
  do {
    const page = await cw.send(new DescribeAlarmsCommand({ NextToken: token, MaxRecords: 100 }));
    alarms.push(...(page.MetricAlarms ?? []));
    token = page.NextToken;
  } while (token);
  return alarms;
}

/** Every metric an alarm reads, one entry per alarm and metric. */
export function readsOf(alarm: MetricAlarm): AlarmRead[] {
  const dims = (d: ReadonlyArray<{ Name?: string; Value?: string }> = []) => Object.fromEntries(d.map((x) => [x.Name!, x.Value!]));
  if (alarm.MetricName) {
    return [
      {
        alarmName: alarm.AlarmName!,
        namespace: alarm.Namespace!,
        metricName: alarm.MetricName,
        dimensions: dims(alarm.Dimensions),
        stat: alarm.Statistic ?? alarm.ExtendedStatistic!,
        periodSeconds: alarm.Period!,
      },
    ];
  }
  return (alarm.Metrics ?? []).flatMap((q) =>
    q.MetricStat
      ? [
          {
            alarmName: alarm.AlarmName!,
            namespace: q.MetricStat.Metric!.Namespace!,
            metricName: q.MetricStat.Metric!.MetricName!,
            dimensions: dims(q.MetricStat.Metric!.Dimensions),
            stat: q.MetricStat.Stat!,
            periodSeconds: q.MetricStat.Period!,
          },
        ]
      : [],
  );
}

/** GetMetricData for each read over [from, to), 500 queries a call (the API's limit). */
export async function datapointsOf(cw: CloudWatchClient, reads: readonly AlarmRead[], from: Date, to: Date): Promise<Datapoint[][]> {
  const out: Datapoint[][] = [];
  for (let i = 0; i < reads.length; i += 500) {
    const batch = reads.slice(i, i + 500);
    const queries: MetricDataQuery[] = batch.map((r, j) => ({
      Id: `m${j}`,
      MetricStat: {
        Metric: {
          Namespace: r.namespace,
          MetricName: r.metricName,
          Dimensions: Object.entries(r.dimensions).map(([Name, Value]) => ({ Name, Value })),
        },
        Period: r.periodSeconds,
        Stat: r.stat,
      },
    }));
    const answer = await cw.send(
      new GetMetricDataCommand({ MetricDataQueries: queries, StartTime: from, EndTime: to, ScanBy: 'TimestampAscending' }),
    );
    for (const [j] of batch.entries()) {
      const r = answer.MetricDataResults?.find((x) => x.Id === `m${j}`);
      out.push((r?.Timestamps ?? []).map((t, k) => ({ at: t.toISOString(), value: r!.Values![k]! })));
    }
  }
  return out;
}

/**
 * The same reads through GetMetricStatistics. moto 5.2's GetMetricData ignores a query's namespace when
 * it names dimensions (it matches the metric name and dimensions of every namespace); GetMetricStatistics
 * honours it, so a datapoint published under another namespace shows here as missing.
 */
export async function statisticsOf(cw: CloudWatchClient, reads: readonly AlarmRead[], from: Date, to: Date): Promise<Datapoint[][]> {
  const byMetric = new Map<string, AlarmRead[]>();
  for (const r of reads) {
    const key = `${r.namespace} ${metricKey(r.metricName, r.dimensions)} ${r.periodSeconds}`;
    byMetric.set(key, [...(byMetric.get(key) ?? []), r]);
  }
  const answers = new Map<AlarmRead, Datapoint[]>();
  await Promise.all(
    [...byMetric.values()].map(async (group) => {
      const [r] = group as [AlarmRead];
      const out = await cw.send(
        new GetMetricStatisticsCommand({
          Namespace: r.namespace,
          MetricName: r.metricName,
          Dimensions: Object.entries(r.dimensions).map(([Name, Value]) => ({ Name, Value })),
          Period: r.periodSeconds,
          StartTime: from,
          EndTime: to,
          Statistics: [...new Set(group.map((g) => g.stat as Statistic))],
        }),
      );
      const points = [...(out.Datapoints ?? [])].sort((a, b) => a.Timestamp!.getTime() - b.Timestamp!.getTime());
      for (const g of group)
        answers.set(
          g,
          points.map((p) => ({ at: p.Timestamp!.toISOString(), value: p[g.stat as Statistic]! })),
        );
    }),
  );
  return reads.map((r) => answers.get(r)!);
}

/** A statistic over one period's values, as CloudWatch computes it. */
export function statistic(stat: string, values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  if (stat === 'Sum') return values.reduce((a, b) => a + b, 0);
  if (stat === 'SampleCount') return values.length;
  if (stat === 'Average') return values.reduce((a, b) => a + b, 0) / values.length;
  if (stat === 'Minimum') return Math.min(...values);
  if (stat === 'Maximum') return Math.max(...values);
  throw new Error(`statistic ${stat} is not modelled here`);
}

/** Every metric in a namespace as `Name Dim=Value …`, sorted: what was published at all. */
export async function publishedMetrics(cw: CloudWatchClient, namespace: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await cw.send(new ListMetricsCommand({ Namespace: namespace, NextToken: token }));
    out.push(
      ...(page.Metrics ?? []).map((m) =>
        metricKey(m.MetricName!, Object.fromEntries((m.Dimensions ?? []).map((d) => [d.Name!, d.Value!]))),
      ),
    );
    token = page.NextToken;
  } while (token);
  return out.sort();
}

export function metricKey(name: string, dimensions: Readonly<Record<string, string>>): string {
  return [
    name,
    ...Object.entries(dimensions)
      .sort()
      .map(([k, v]) => `${k}=${v}`),
  ].join(' ');
}

/**
 * The metrics the deployed dashboards graph, as `metricKey`s, from each body's `metrics` arrays
 * (`[namespace, name, dimension, value, …, {options}]`; `"."` repeats the row above, as the console writes it).
 */
export async function dashboardMetrics(cw: CloudWatchClient, namespace: string): Promise<Set<string>> {
  const keys = new Set<string>();
  const names = ((await cw.send(new ListDashboardsCommand({}))).DashboardEntries ?? []).map((d) => d.DashboardName!);
  for (const name of names) {
    const body = JSON.parse((await cw.send(new GetDashboardCommand({ DashboardName: name }))).DashboardBody ?? '{}') as {
      widgets?: Array<{ properties?: { metrics?: unknown[][] } }>;
    };
    for (const w of body.widgets ?? []) {
      let previous: unknown[] = [];
      for (const row of w.properties?.metrics ?? []) {
        const cells = row.filter((c) => typeof c === 'string').map((c, i) => (c === '.' ? previous[i] : c)) as string[];
        previous = cells;
        const [ns, metric, ...dims] = cells;
        if (ns !== namespace || metric === undefined) continue;
        const dimensions: Record<string, string> = {};
        for (let i = 0; i + 1 < dims.length; i += 2) dimensions[dims[i]!] = dims[i + 1]!;
        keys.add(metricKey(metric, dimensions));
      }
    }
  }
  return keys;
}
