/**
 * Reads what the cost model needs from synthesized templates: schedules and their payloads, the memory
 * and architecture of the functions they invoke, the metrics the runs publish (counted from the
 * dimension sets the payloads imply), every alarm and how many metrics it reads, dashboards, log retention.
 */
import { Dimension, MetricName } from '../../functions/publish/schema.ts';
import { periodSeconds } from '../../infra/rates.ts';
import type { AlarmInventory, Inventory, ScheduleInventory } from './cost-model.ts';
import type { StackTemplate } from './fleet-scale.ts';

type Props = Record<string, unknown>;

interface MetricStat {
  readonly Metric?: {
    readonly MetricName?: string;
    readonly Namespace?: string;
    readonly Dimensions?: ReadonlyArray<{ Name: string; Value: unknown }>;
  };
}

export interface ReadInventory extends Inventory {
  /** Alarmed metrics no run publishes (an alarm that can never see data), as `metric Target`. */
  readonly unpublishedAlarmMetrics: readonly string[];
  /** Schedules whose function was not found in their own template (memory taken from the region's run function). */
  readonly guessedMemory: number;
}

export function readInventory(stacks: readonly StackTemplate[], namespace: string): ReadInventory {
  const schedules: ScheduleInventory[] = [];
  const alarms: AlarmInventory[] = [];
  const published = new Set<string>();
  const alarmed = new Set<string>();
  let dashboards = 0;
  let logRetentionDays = 0;
  let guessedMemory = 0;
  const metricNames = Object.values(MetricName);

  const functionsByRegion = new Map<string, Props[]>();
  for (const stack of stacks) {
    for (const r of Object.values(stack.template.Resources)) {
      if (r.Type === 'AWS::Lambda::Function' && r.Properties)
        functionsByRegion.set(stack.region, [...(functionsByRegion.get(stack.region) ?? []), r.Properties]);
    }
  }

  for (const stack of stacks) {
    const resources = stack.template.Resources;
    for (const r of Object.values(resources)) {
      const p = (r.Properties ?? {}) as Props;
      if (r.Type === 'AWS::Scheduler::Schedule') {
        const target = p.Target as { Arn?: unknown; Input?: string };
        const payload = JSON.parse(target.Input ?? '{"targets":[]}') as {
          targets: Array<{ name: string; headerSecrets?: Record<string, { secretsManager?: string }> }>;
        };
        const logicalId = (target.Arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
        let fn = logicalId ? (resources[logicalId]?.Properties as Props | undefined) : undefined;
        if (!fn) {
          guessedMemory++;
          fn = (functionsByRegion.get(stack.region) ?? []).sort((a, b) => Number(b.MemorySize ?? 128) - Number(a.MemorySize ?? 128))[0];
        }
        const architectures = (fn?.Architectures as string[] | undefined) ?? ['x86_64'];
        schedules.push({
          region: stack.region,
          periodSeconds: periodSeconds(String(p.ScheduleExpression)),
          memoryMb: Number(fn?.MemorySize ?? 128),
          architecture: architectures[0] === 'arm64' ? 'arm64' : 'x86_64',
          targets: payload.targets.map((t) => ({
            name: t.name,
            secretsManagerRefs: new Set(
              Object.values(t.headerSecrets ?? {}).flatMap((ref) => (ref.secretsManager ? [ref.secretsManager] : [])),
            ).size,
          })),
        });
        for (const t of payload.targets) for (const m of metricNames) published.add(metricKey(m, t.name));
      } else if (r.Type === 'AWS::CloudWatch::Alarm') {
        const metrics = p.Metrics as Array<{ MetricStat?: MetricStat }> | undefined;
        const stats: MetricStat[] = metrics
          ? metrics.flatMap((q) => (q.MetricStat ? [q.MetricStat] : []))
          : [
              {
                Metric: {
                  MetricName: p.MetricName as string,
                  Namespace: p.Namespace as string,
                  Dimensions: p.Dimensions as Array<{ Name: string; Value: unknown }>,
                },
              },
            ];
        const targets = new Set<string>();
        for (const s of stats) {
          const dims = new Map((s.Metric?.Dimensions ?? []).map((d) => [d.Name, d.Value]));
          const target = dims.get(Dimension.target);
          if (s.Metric?.Namespace !== namespace || typeof target !== 'string') continue;
          targets.add(target);
          alarmed.add(metricKey(s.Metric.MetricName ?? '?', target));
        }
        alarms.push({ target: targets.size === 1 ? [...targets][0]! : null, alarmMetrics: stats.length, math: metrics !== undefined });
      } else if (r.Type === 'AWS::CloudWatch::Dashboard') {
        dashboards++;
      } else if (r.Type === 'AWS::Logs::LogGroup') {
        logRetentionDays = Math.max(logRetentionDays, Number(p.RetentionInDays ?? 0));
      }
    }
  }
  return {
    schedules,
    publishedMetrics: published.size,
    metricsPerTarget: metricNames.length,
    alarms,
    dashboards,
    // No retention set means "never expire": model a month stored, the most the model counts.
    logRetentionDays: logRetentionDays || 30,
    unpublishedAlarmMetrics: [...alarmed].filter((k) => !published.has(k)).map((k) => k.replace('|', ' ')),
    guessedMemory,
  };
}

function metricKey(metric: string, target: string): string {
  return `${metric}|${target}`;
}
