/**
 * The EventBridge "CloudWatch Alarm State Change" event → what the brief needs: which target, which
 * kind of alarm, which regions, the transition, and the endpoint and runbook the alarm's description
 * carries. Pure. An event for an alarm that is not one of this fleet's target alarms yields `null`.
 */
import { parseAlarmDescription, parseAlarmName, type AlarmKind } from '../../base/common/alarm-words.ts';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface AlarmChange {
  readonly alarmName: string;
  /** `resources[0]` of the event. */
  readonly alarmArn: string | undefined;
  readonly target: string;
  readonly kind: AlarmKind;
  /** Probe regions, from the alarm's description (or the fleet's, if it names none). */
  readonly regions: readonly string[];
  /** The alarm period in seconds: one run per period. */
  readonly periodSeconds: number | undefined;
  readonly state: AlarmState;
  readonly previousState: AlarmState | undefined;
  /** CloudWatch's reason for the previous state: "Unchecked: Initial alarm creation" for a new alarm. */
  readonly previousReason: string;
  /** CloudWatch's own reason text for the new state. */
  readonly reason: string;
  readonly changedAt: Date;
  readonly endpoint: string | undefined;
  readonly runbookUrl: string | undefined;
}

interface EventMetric {
  readonly metricStat?: { readonly period?: number };
}

interface AlarmEvent {
  readonly 'detail-type'?: string;
  readonly time?: string;
  readonly resources?: readonly string[];
  readonly detail?: {
    readonly alarmName?: string;
    readonly state?: { readonly value?: string; readonly reason?: string; readonly timestamp?: string };
    readonly previousState?: { readonly value?: string; readonly reason?: string };
    readonly configuration?: { readonly description?: string; readonly metrics?: readonly EventMetric[] };
  };
}

export function readAlarmChange(event: unknown, fleet: string, fallbackRegions: readonly string[]): AlarmChange | null {
  const e = (event ?? {}) as AlarmEvent;
  const name = e.detail?.alarmName;
  if (e['detail-type'] !== 'CloudWatch Alarm State Change' || typeof name !== 'string') return null;
  const parsed = parseAlarmName(fleet, name);
  if (!parsed) return null;
  const state = asState(e.detail?.state?.value);
  if (!state) return null;
  const metrics = e.detail?.configuration?.metrics ?? [];
  const period = metrics.map((m) => m.metricStat?.period).find((p): p is number => typeof p === 'number' && p > 0);
  const { endpoint, regions = [], runbookUrl } = parseAlarmDescription(e.detail?.configuration?.description ?? '');
  const changedAt = parseTime(e.detail?.state?.timestamp) ?? parseTime(e.time) ?? new Date(0);
  return {
    alarmName: name,
    alarmArn: e.resources?.[0],
    target: parsed.target,
    kind: parsed.kind,
    regions: regions.length > 0 ? regions : fallbackRegions,
    periodSeconds: period,
    state,
    previousState: asState(e.detail?.previousState?.value),
    previousReason: e.detail?.previousState?.reason ?? '',
    reason: e.detail?.state?.reason ?? '',
    changedAt,
    endpoint,
    runbookUrl,
  };
}

function asState(v: unknown): AlarmState | undefined {
  return v === 'OK' || v === 'ALARM' || v === 'INSUFFICIENT_DATA' ? v : undefined;
}

/** CloudWatch writes `2026-11-29T22:03:40.123+0000`; `Date` wants a colon in the offset. */
function parseTime(s: string | undefined): Date | undefined {
  if (!s) return undefined;
  const d = new Date(s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(d.getTime()) ? undefined : d;
}
