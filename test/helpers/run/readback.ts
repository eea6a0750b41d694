/**
 * Reads published canary metrics back from moto the way an alarm would: by namespace, metric name and
 * the exact Target dimension, in one region.
 */
import { CloudWatchClient, GetMetricDataCommand, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { motoCredentials } from '../moto.ts';

export function cloudWatchAt(endpoint: string, region: string): CloudWatchClient {
  return new CloudWatchClient({ region, endpoint, credentials: motoCredentials, maxAttempts: 1 });
}

export interface ReadBack {
  /** `Verdict` SampleCount: how many runs reported (the heartbeat). */
  readonly runs: number;
  /** `Verdict` Maximum: the worst run's value (`verdictValue`: 1 failed, 0 healthy, fractions below one otherwise). */
  readonly worst: number | undefined;
}

export async function readRuns(client: CloudWatchClient, namespace: string, target: string): Promise<ReadBack> {
  const Dimensions = [{ Name: 'Target', Value: target }];
  const query = (Id: string, Stat: string) => ({
    Id,
    MetricStat: { Metric: { Namespace: namespace, MetricName: 'Verdict', Dimensions }, Period: 60, Stat },
  });
  const out = await client.send(
    new GetMetricDataCommand({
      StartTime: new Date(Date.now() - 15 * 60_000),
      EndTime: new Date(Date.now() + 5 * 60_000),
      MetricDataQueries: [query('runs', 'SampleCount'), query('worst', 'Maximum')],
    }),
  );
  const values = (id: string) => out.MetricDataResults?.find((r) => r.Id === id)?.Values ?? [];
  return {
    runs: values('runs').reduce((a, b) => a + b, 0),
    worst: values('worst').length ? Math.max(...values('worst')) : undefined,
  };
}

/** The fleet-level `Inconclusive` metric of one rate: the verdicts that could not judge, summed over the last minutes. */
export async function readInconclusive(client: CloudWatchClient, namespace: string, rate: string): Promise<number> {
  const out = await client.send(
    new GetMetricDataCommand({
      StartTime: new Date(Date.now() - 15 * 60_000),
      EndTime: new Date(Date.now() + 5 * 60_000),
      MetricDataQueries: [
        {
          Id: 'inconclusive',
          MetricStat: {
            Metric: { Namespace: namespace, MetricName: 'Inconclusive', Dimensions: [{ Name: 'Rate', Value: rate }] },
            Period: 60,
            Stat: 'Sum',
          },
        },
      ],
    }),
  );
  return (out.MetricDataResults?.[0]?.Values ?? []).reduce((a, b) => a + b, 0);
}

/** Every metric in the namespace, as `Name Target=…` strings, sorted. */
export async function listMetrics(client: CloudWatchClient, namespace: string): Promise<string[]> {
  const out = await client.send(new ListMetricsCommand({ Namespace: namespace }));
  return (out.Metrics ?? []).map((m) => `${m.MetricName} ${(m.Dimensions ?? []).map((d) => `${d.Name}=${d.Value}`).join(' ')}`).sort();
}
