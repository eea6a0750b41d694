/** Run records and alarm state-change events for the brief's tests, in the shapes AWS and the run produce. */
import { RUN_RECORD_MESSAGE, type RunRecord } from '../../../functions/base/common/run-record.ts';
import type { FailureClass, Outcome, ProbeResult, Verdict } from '../../../functions/base/common/verdict.ts';
import { dims, type AlarmProps } from '../infra/cfn.ts';

export const T0 = Date.UTC(2026, 10, 29, 22, 0, 0);
export const minute = (k: number) => new Date(T0 + k * 60_000);

export function verdict(
  target: string,
  outcome: Outcome,
  failure: FailureClass | null = null,
  detail = outcome === 'healthy' ? 'get_rate answered as expected' : 'tools/call answered HTTP 503',
  probes: ProbeResult[] = [],
): Verdict {
  return {
    target,
    outcome,
    failure,
    detail,
    revision: outcome === 'inconclusive' ? null : '2026-07-28',
    server: outcome === 'inconclusive' ? null : { name: 'rates', version: '1.2.3' },
    durationMs: 420,
    retries: 0,
    probes,
    warnings: [],
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  };
}

export function record(v: Verdict, probeRegion: string, startedAt: Date): RunRecord {
  const scheduledFor = new Date(Math.floor(startedAt.getTime() / 60_000) * 60_000);
  return {
    message: RUN_RECORD_MESSAGE,
    target: v.target,
    probeRegion,
    startedAt: startedAt.toISOString(),
    scheduledFor: scheduledFor.toISOString(),
    verdict: v,
  };
}

/** The EventBridge "CloudWatch Alarm State Change" event for a synthesized alarm (documented shape). */
export function alarmEvent(
  alarm: AlarmProps,
  change: {
    state: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA';
    previous: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA';
    at: Date;
    account?: string;
    region?: string;
    /** CloudWatch's reason for the previous state ("Unchecked: Initial alarm creation" for a new alarm). */
    previousReason?: string;
  },
) {
  const account = change.account ?? '111122223333';
  const region = change.region ?? 'us-east-1';
  const ts = change.at.toISOString().replace('Z', '+0000');
  return {
    version: '0',
    id: 'c4c1c1c9-6542-e61b-6ef0-8c4d36933a92',
    'detail-type': 'CloudWatch Alarm State Change',
    source: 'aws.cloudwatch',
    account,
    time: change.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:cloudwatch:${region}:${account}:alarm:${alarm.AlarmName}`],
    detail: {
      alarmName: alarm.AlarmName,
      state: {
        value: change.state,
        reason: `Threshold Crossed: ${alarm.DatapointsToAlarm} out of the last ${alarm.EvaluationPeriods} datapoints`,
        timestamp: ts,
      },
      previousState: {
        value: change.previous,
        reason: change.previousReason ?? '',
        timestamp: new Date(change.at.getTime() - 600_000).toISOString().replace('Z', '+0000'),
      },
      configuration: {
        description: alarm.AlarmDescription,
        // A single-metric alarm's event carries its one metric in the same list.
        metrics: (
          alarm.Metrics ?? [
            {
              Id: 'm1',
              ReturnData: true,
              MetricStat: {
                Metric: { Namespace: alarm.Namespace!, MetricName: alarm.MetricName!, Dimensions: alarm.Dimensions! },
                Period: alarm.Period!,
                Stat: alarm.Statistic!,
              },
            },
          ]
        ).map((m) =>
          m.MetricStat
            ? {
                id: m.Id,
                metricStat: {
                  metric: {
                    namespace: m.MetricStat.Metric.Namespace,
                    name: m.MetricStat.Metric.MetricName,
                    dimensions: dims(m.MetricStat.Metric.Dimensions),
                  },
                  period: m.MetricStat.Period,
                  stat: m.MetricStat.Stat,
                },
                returnData: false,
              }
            : { id: m.Id, expression: m.Expression, label: 'expression', returnData: true },
        ),
      },
    },
  };
}
