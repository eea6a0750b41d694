/**
 * Did the runs' datapoints land exactly where the deployed alarms read? For every metric a deployed alarm
 * reads in the fleet's namespace: one datapoint, in the period the runs were scheduled for, whose value
 * is the alarm's statistic over the runs' verdicts for that target (from the runs' own records), or for
 * the fleet-level `Inconclusive` metric of a rate, over that rate's verdicts that could not judge; nothing
 * in the neighbouring periods; and nothing published that no alarm reads and no deployed dashboard graphs
 * (the fleet-level RunDuration per region is the dashboard's). Metrics the AWS services
 * publish themselves (AWS/Lambda, AWS/SQS), and the run's own faults (`CanaryFaults`, which CloudWatch
 * Logs extracts from the run log's embedded metric format, and only when a fault happens), are returned
 * apart: moto produces none of them (test/release/lambdas/run/own-faults.test.ts reads the EMF lines).
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { Dimension, MetricName, RUN_RECORD_MESSAGE, verdictValue, type RunRecord } from '../../../../functions/base/common/run-record.ts';
import { OWN_FAULTS_METRIC } from '../../../../functions/base/common/own-faults.ts';
import type { Invocation } from './invoke.ts';
import {
  dashboardMetrics,
  datapointsOf,
  deployedAlarms,
  metricKey,
  publishedMetrics,
  readsOf,
  statistic,
  statisticsOf,
  type AlarmRead,
  type Datapoint,
} from './metrics.ts';

export interface Landing {
  /** Empty when every datapoint is where the alarms read. */
  readonly problems: readonly string[];
  /** Alarm reads of the namespace that were checked. */
  readonly checked: readonly AlarmRead[];
  /** Alarm reads of metrics AWS services publish: not producible in moto. */
  readonly serviceMetrics: readonly AlarmRead[];
}

type Reader = (cw: CloudWatchClient, reads: readonly AlarmRead[], from: Date, to: Date) => Promise<Datapoint[][]>;

/** Each read over its own period before the scheduled one, and the one after: a datapoint a period off shows. */
async function around(home: CloudWatchClient, reads: readonly AlarmRead[], at: Date, read: Reader): Promise<Datapoint[][]> {
  const out: Datapoint[][] = new Array(reads.length);
  for (const period of new Set(reads.map((r) => r.periodSeconds))) {
    const indexes = reads.flatMap((r, i) => (r.periodSeconds === period ? [i] : []));
    const batch = indexes.map((i) => reads[i]!);
    const points = await read(home, batch, new Date(at.getTime() - period * 1000), new Date(at.getTime() + 2 * period * 1000));
    points.forEach((p, j) => (out[indexes[j]!] = p));
  }
  return out;
}

export function runRecords(runs: readonly Invocation[]): RunRecord[] {
  return runs.flatMap((r) => r.logLines).filter((l): l is RunRecord & Record<string, unknown> => l.message === RUN_RECORD_MESSAGE);
}

export async function checkLanding(
  home: CloudWatchClient,
  namespace: string,
  runs: readonly Invocation[],
  periodStart: Date,
): Promise<Landing> {
  const records = runRecords(runs);
  // The run function of a rate is `<fleet>-run-<rate>` (infra/plan/names.ts): the rate its records publish under.
  const rateOf = new Map(runs.flatMap((r) => runRecords([r]).map((rec) => [rec, /-run-(\w+)$/.exec(r.functionName)?.[1]] as const)));
  const reads = (await deployedAlarms(home)).flatMap(readsOf);
  const checked = reads.filter((r) => r.namespace === namespace && r.metricName !== OWN_FAULTS_METRIC);
  const problems: string[] = records.length === 0 ? ['the runs wrote no run records: nothing to look for'] : [];
  const at = periodStart.toISOString();
  const points = await around(home, checked, periodStart, datapointsOf);
  const statistics = await around(home, checked, periodStart, statisticsOf);
  checked.forEach((r, i) => {
    const target = r.dimensions[Dimension.target];
    const mine = records.filter((rec) => rec.target === target);
    const unjudged = records.filter((rec) => rec.verdict.outcome === 'inconclusive' && rateOf.get(rec) === r.dimensions[Dimension.rate]);
    const expected =
      r.metricName === MetricName.inconclusive
        ? statistic(r.stat, unjudged.length ? [unjudged.length] : [])
        : statistic(
            r.stat,
            mine.map((rec) => verdictValue(rec.verdict)),
          );
    const want = expected === undefined ? [] : [{ at, value: expected }];
    const wrongPeriod = (r.metricName === MetricName.inconclusive ? unjudged : mine).filter((rec) => rec.scheduledFor !== at);
    if (wrongPeriod.length)
      problems.push(`${target}: runs recorded for ${wrongPeriod.map((x) => x.scheduledFor).join(', ')}, not the scheduled period ${at}`);
    const read = `${r.alarmName} reads ${r.stat} of ${metricKey(r.metricName, r.dimensions)} per ${r.periodSeconds} s`;
    if (JSON.stringify(points[i]) !== JSON.stringify(want))
      problems.push(`${read}: CloudWatch has ${JSON.stringify(points[i])}, the runs make ${JSON.stringify(want)}`);
    else if (JSON.stringify(statistics[i]) !== JSON.stringify(want)) {
      problems.push(
        `${read}: GetMetricStatistics has ${JSON.stringify(statistics[i])} in ${namespace}, the runs make ${JSON.stringify(want)}`,
      );
    }
  });
  const ran = new Set(records.map((r) => r.target));
  const watched = new Set(checked.map((r) => r.dimensions[Dimension.target]));
  for (const t of ran) if (!watched.has(t)) problems.push(`${t} ran, and no deployed alarm reads its metrics`);
  const read = new Set(checked.map((r) => metricKey(r.metricName, r.dimensions)));
  const graphed = await dashboardMetrics(home, namespace);
  for (const m of await publishedMetrics(home, namespace))
    if (!read.has(m) && !graphed.has(m)) problems.push(`${m} was published in ${namespace}, and no deployed alarm or dashboard reads it`);
  return { problems, checked, serviceMetrics: reads.filter((r) => r.namespace.startsWith('AWS/') || r.metricName === OWN_FAULTS_METRIC) };
}
