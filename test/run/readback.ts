/**
 * Reads published canary metrics back from moto the way an alarm would: by namespace, metric name and
 * the exact Target + ProbeRegion dimension set, in one region.
 */
import { CloudWatchClient, GetMetricDataCommand, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { motoCredentials } from '../support/moto.ts';

export function cloudWatchAt(endpoint: string, region: string): CloudWatchClient {
  return new CloudWatchClient({ region, endpoint, credentials: motoCredentials, maxAttempts: 1 });
}

export interface ReadBack {
  /** `Outcome` SampleCount: how many runs reported (the heartbeat). */
  readonly runs: number;
  /** `Outcome` Maximum / Minimum: the worst and best outcome code seen. */
  readonly worstOutcome: number | undefined;
  readonly bestOutcome: number | undefined;
  /** `Duration` Maximum, in ms. */
  readonly maxDurationMs: number | undefined;
}

export async function readRuns(client: CloudWatchClient, namespace: string, target: string, probeRegion: string): Promise<ReadBack> {
  // Dimensions in the publisher's order: moto, unlike CloudWatch, matches them in order.
  const Dimensions = [{ Name: 'Target', Value: target }, { Name: 'ProbeRegion', Value: probeRegion }];
  const query = (Id: string, MetricName: string, Stat: string) => ({ Id, MetricStat: { Metric: { Namespace: namespace, MetricName, Dimensions }, Period: 60, Stat } });
  const out = await client.send(new GetMetricDataCommand({
    StartTime: new Date(Date.now() - 15 * 60_000),
    EndTime: new Date(Date.now() + 5 * 60_000),
    MetricDataQueries: [query('runs', 'Outcome', 'SampleCount'), query('worst', 'Outcome', 'Maximum'), query('best', 'Outcome', 'Minimum'), query('dur', 'Duration', 'Maximum')],
  }));
  const values = (id: string) => out.MetricDataResults?.find((r) => r.Id === id)?.Values ?? [];
  const max = (v: number[]) => (v.length ? Math.max(...v) : undefined);
  return {
    runs: values('runs').reduce((a, b) => a + b, 0),
    worstOutcome: max(values('worst')),
    bestOutcome: values('best').length ? Math.min(...values('best')) : undefined,
    maxDurationMs: max(values('dur')),
  };
}

/** Every metric in the namespace, as `Name Target=… ProbeRegion=…` strings, sorted. */
export async function listMetrics(client: CloudWatchClient, namespace: string): Promise<string[]> {
  const out = await client.send(new ListMetricsCommand({ Namespace: namespace }));
  return (out.Metrics ?? [])
    .map((m) => `${m.MetricName} ${(m.Dimensions ?? []).map((d) => `${d.Name}=${d.Value}`).join(' ')}`)
    .sort();
}
