/**
 * Reads what the cost model needs from synthesized templates: schedules and their payloads (with the
 * credentials each target references and where they are stored), the memory and architecture of the
 * functions they invoke, the metrics the runs publish (counted from the dimension sets the payloads
 * imply), every alarm and how many metrics it reads, the dashboard's widgets and range, the run
 * ledger tables, log retention.
 */
import { backendTargetName } from '../../functions/base/config/schema/backends.ts';
import { Dimension, MetricName } from '../../functions/base/common/run-record.ts';
import { rateSeconds } from '../../functions/base/config/aws/schedule.ts';
import type { AlarmInventory, CredentialRef, Inventory, ScheduleInventory } from './cost-model.ts';
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
  const probeRegions = new Set<string>();
  const ledgerRegions = new Set<string>();
  const bodies: unknown[] = [];

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
          targets: Array<{
            name: string;
            headerSecrets?: Record<string, { secretsManager?: string; ssmParameter?: string }>;
            backends?: Array<{ name: string }>;
          }>;
        };
        // The status page's schedule carries display names, not endpoints: not a run (cost-features.ts prices it).
        if (payload.targets.some((t) => !('url' in t))) continue;
        const logicalId = (target.Arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
        let fn = logicalId ? (resources[logicalId]?.Properties as Props | undefined) : undefined;
        if (!fn) {
          guessedMemory++;
          fn = (functionsByRegion.get(stack.region) ?? []).sort((a, b) => Number(b.MemorySize ?? 128) - Number(a.MemorySize ?? 128))[0];
        }
        const architectures = (fn?.Architectures as string[] | undefined) ?? ['x86_64'];
        schedules.push({
          region: stack.region,
          periodSeconds: periodOf(String(p.ScheduleExpression)),
          memoryMb: Number(fn?.MemorySize ?? 128),
          architecture: architectures[0] === 'arm64' ? 'arm64' : 'x86_64',
          // A gateway's backends ride its invocation and are priced as targets: each has its verdict
          // metric, run record and alarms (the gateway's credentials are read once, by the gateway).
          targets: payload.targets.flatMap((t) => [
            { name: t.name, credentials: Object.values(t.headerSecrets ?? {}).map((ref) => credentialOf(ref, stack.region)) },
            ...(t.backends ?? []).map((b) => ({ name: backendTargetName(t.name, b.name), credentials: [], gateway: t.name })),
          ]),
        });
        probeRegions.add(stack.region);
        for (const t of payload.targets)
          for (const name of [t.name, ...(t.backends ?? []).map((b) => backendTargetName(t.name, b.name))])
            published.add(metricKey(MetricName.verdict, name));
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
        bodies.push(p.DashboardBody);
      } else if (r.Type === 'AWS::DynamoDB::Table') {
        ledgerRegions.add(stack.region);
      } else if (r.Type === 'AWS::Logs::LogGroup') {
        logRetentionDays = Math.max(logRetentionDays, Number(p.RetentionInDays ?? 0));
      }
    }
  }
  // After every stack: a Metrics Insights widget analyzes every target's metric.
  const dashboard = bodies.map((b) => readDashboard(b, published.size))[0] ?? { logWidgets: [], metricsPerRefresh: 0, rangeHours: 3 };
  return {
    schedules,
    publishedMetrics: published.size,
    metricsPerTarget: 1,
    fleetMetrics: probeRegions.size,
    ledgerRegions: [...ledgerRegions],
    dashboardLogWidgets: dashboard.logWidgets,
    dashboardMetricsPerRefresh: dashboard.metricsPerRefresh,
    dashboardRangeHours: dashboard.rangeHours,
    alarms,
    dashboards,
    // No retention set means "never expire": model a month stored, the most the model counts.
    logRetentionDays: logRetentionDays || 30,
    unpublishedAlarmMetrics: [...alarmed].filter((k) => !published.has(k)).map((k) => k.replace('|', ' ')),
    guessedMemory,
  };
}

/** A name is read in the probe region (so it must be stored there); an ARN where the ARN says. */
function credentialOf(ref: { secretsManager?: string; ssmParameter?: string }, probeRegion: string): CredentialRef {
  const kind = ref.secretsManager !== undefined ? 'secretsManager' : 'ssmParameter';
  const id = ref.secretsManager ?? ref.ssmParameter ?? '';
  return {
    kind,
    id: id.startsWith('arn:') ? id.split(':').slice(5).join(':') : id,
    storedIn: id.startsWith('arn:') ? id.split(':')[3]! : probeRegion,
  };
}

/**
 * The dashboard body (an Fn::Join of strings and references): its Logs Insights widgets by region, the
 * metrics its metric widgets request per refresh (a Metrics Insights query over the fleet analyzes every
 * target's metric), and the range it opens with.
 */
function readDashboard(body: unknown, targets: number): { logWidgets: string[]; metricsPerRefresh: number; rangeHours: number } {
  const join = (body as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  const text = join ? join[1].map((x) => (typeof x === 'string' ? x : 'REF')).join(join[0]) : String(body);
  const parsed = JSON.parse(text) as {
    start?: string;
    widgets: Array<{ type: string; properties: { region?: string; metrics?: unknown[][] } }>;
  };
  const hours = /^-PT(\d+)H$/.exec(parsed.start ?? '')?.[1];
  let metricsPerRefresh = 0;
  for (const w of parsed.widgets.filter((x) => x.type === 'metric'))
    for (const m of w.properties.metrics ?? [])
      metricsPerRefresh +=
        typeof m[0] === 'object' && /SCHEMA\(/.test(String((m[0] as { expression?: string }).expression))
          ? targets
          : typeof m[0] === 'string'
            ? 1
            : 0;
  return {
    logWidgets: parsed.widgets.filter((w) => w.type === 'log').map((w) => w.properties.region ?? 'unknown'),
    metricsPerRefresh,
    rangeHours: hours === undefined ? 3 : Number(hours),
  };
}

function metricKey(metric: string, target: string): string {
  return `${metric}|${target}`;
}

/** A synthesized schedule's period: the stacks write only rates. */
function periodOf(expression: string): number {
  const seconds = rateSeconds(expression);
  if (seconds === null) throw new Error(`schedule ${expression} in the template is not a rate`);
  return seconds;
}
