/**
 * Reads targets' `Verdict` metric (Sum and SampleCount, the two statistics the alarms read) with
 * GetMetricData: every target of the fleet in one request per 250 targets (500 queries, the API's limit),
 * following NextToken (a response holds at most 100,800 datapoints), and counts what it asked for:
 * GetMetricData is billed per metric requested.
 */
import { GetMetricDataCommand, type CloudWatchClient, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { decodeVerdicts, Dimension, MetricName } from '../../base/common/run-record.ts';
import type { PeriodSample } from './timeline.ts';

/** GetMetricData's limit on queries per request. */
export const MAX_QUERIES_PER_REQUEST = 500;

export interface MetricWindow {
  readonly target: string;
  readonly periodSeconds: number;
  readonly startMs: number;
  readonly endMs: number;
}

export interface MetricCost {
  /** GetMetricData calls, pages included. */
  requests: number;
  /** Metrics requested, summed over calls (what AWS bills, per 1,000). */
  metrics: number;
  datapoints: number;
}

/** Per target, `samples[i]` for the period starting at startMs + i·period, decoded; undefined where no region reported. */
export async function readVerdicts(
  client: CloudWatchClient,
  namespace: string,
  windows: readonly MetricWindow[],
  cost: MetricCost,
): Promise<Map<string, Array<PeriodSample | undefined>>> {
  const out = new Map<string, Array<PeriodSample | undefined>>();
  const perRequest = MAX_QUERIES_PER_REQUEST / 2;
  for (let first = 0; first < windows.length; first += perRequest) {
    const batch = windows.slice(first, first + perRequest);
    const queries: MetricDataQuery[] = batch.flatMap((w, i) =>
      (['Sum', 'SampleCount'] as const).map((stat) => ({
        Id: `${stat === 'Sum' ? 'f' : 'r'}${i}`,
        MetricStat: {
          Metric: { Namespace: namespace, MetricName: MetricName.verdict, Dimensions: [{ Name: Dimension.target, Value: w.target }] },
          Period: w.periodSeconds,
          Stat: stat,
        },
        ReturnData: true,
      })),
    );
    const startMs = Math.min(...batch.map((w) => w.startMs));
    const endMs = Math.max(...batch.map((w) => w.endMs));
    const values = new Map<string, Map<number, number>>();
    let token: string | undefined;
    do {
      const res = await client.send(
        new GetMetricDataCommand({
          MetricDataQueries: queries,
          StartTime: new Date(startMs),
          EndTime: new Date(endMs),
          ScanBy: 'TimestampAscending',
          NextToken: token,
        }),
      );
      cost.requests++;
      cost.metrics += queries.length;
      for (const r of res.MetricDataResults ?? []) {
        const series = values.get(r.Id!) ?? new Map<number, number>();
        (r.Timestamps ?? []).forEach((t, j) => series.set(t.getTime(), r.Values![j]!));
        cost.datapoints += r.Values?.length ?? 0;
        values.set(r.Id!, series);
      }
      token = res.NextToken;
    } while (token);
    batch.forEach((w, i) => {
      const p = w.periodSeconds * 1000;
      const samples: Array<PeriodSample | undefined> = Array.from({ length: Math.round((w.endMs - w.startMs) / p) });
      const failing = values.get(`f${i}`) ?? new Map<number, number>();
      for (const [t, reports] of values.get(`r${i}`) ?? []) {
        const k = Math.floor((t - w.startMs) / p);
        if (k < 0 || k >= samples.length || reports <= 0) continue;
        const d = decodeVerdicts(failing.get(t) ?? 0, reports);
        samples[k] = { failing: d.failed, reports, inconclusive: d.inconclusive, ticket: d.ticket, ticketed: d.ticketed };
      }
      out.set(w.target, samples);
    });
  }
  return out;
}
