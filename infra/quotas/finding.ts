/**
 * How a finding names what is too big: the stack, the resource's logical id, what it is in the user's
 * words (alarm "McpCanary/rates-prod/critical", the role RunRole) and, where it belongs to one, the
 * target it was made for, so the message leads to the line of config to change.
 */
import { Dimension } from '../../functions/base/common/run-record.ts';
import type { Longest } from './longest.ts';
import { LENGTH_RULES } from './lengths.ts';
import type { Quota } from './limits.ts';
import type { CfnResource } from './template.ts';

/** One quota broken by one stack or resource. */
export interface Finding {
  readonly stack: string;
  /** Absent for the template as a whole. */
  readonly logicalId?: string;
  readonly rule: string;
  readonly measured: number;
  readonly limit: number;
  readonly adjustable: boolean;
  readonly source: string;
  /** One line: stack, resource, what was measured against which figure, and the fix. */
  readonly message: string;
}

export interface Subject {
  readonly logicalId: string;
  readonly resource: CfnResource;
  /** The construct path, when the tree or the template's metadata gives it. */
  readonly path?: string;
}

const WORDS: Record<string, string> = {
  'AWS::IAM::Role': 'role',
  'AWS::IAM::ManagedPolicy': 'managed policy',
  'AWS::IAM::Policy': 'policy',
  'AWS::CloudWatch::Alarm': 'alarm',
  'AWS::CloudWatch::Dashboard': 'dashboard',
  'AWS::CloudWatch::AlarmMuteRule': 'mute rule',
  'AWS::Scheduler::Schedule': 'schedule',
  'AWS::Scheduler::ScheduleGroup': 'schedule group',
  'AWS::Lambda::Function': 'function',
  'AWS::SNS::Topic': 'topic',
  'AWS::SNS::TopicPolicy': 'topic policy',
  'AWS::SQS::Queue': 'queue',
  'AWS::SQS::QueuePolicy': 'queue policy',
  'AWS::Logs::LogGroup': 'log group',
  'AWS::Events::Rule': 'rule',
};

/** `RunRole2D500A0A (role RunRole)`, `docsCritical… (alarm "McpCanary/docs/critical", target "docs")`. */
export function describe(l: Longest, s: Subject): string {
  const word = WORDS[s.resource.Type] ?? s.resource.Type;
  const nameProperty = LENGTH_RULES.find((r) => r.type === s.resource.Type && /Name$/.test(r.property) && r.property !== 'GroupName');
  const named = nameProperty && s.resource.Properties?.[nameProperty.property];
  const alarmName = s.resource.Type === 'AWS::CloudWatch::Alarm' ? s.resource.Properties?.AlarmName : undefined;
  const given = named ?? alarmName;
  const name = given !== undefined ? JSON.stringify(l.string(given)) : constructName(s.path);
  const targets = targetsOf(s.resource);
  const forTargets = targets.length === 0 ? '' : `, ${targets.length === 1 ? 'target' : 'targets'} ${listed(targets)}`;
  return `${s.logicalId} (${word}${name ? ` ${name}` : ''}${forTargets})`;
}

/** `McpCanary/Probe-us-east-1/RunRole/Resource` → `RunRole`. */
function constructName(path: string | undefined): string {
  if (!path) return '';
  const parts = path.split('/');
  const last = parts.at(-1);
  return (last === 'Resource' || last === 'Default' ? parts.at(-2) : last) ?? '';
}

/** The targets a resource was made for: an alarm's `Target` dimension, a schedule's payload. */
function targetsOf(r: CfnResource): string[] {
  const p = r.Properties ?? {};
  if (r.Type === 'AWS::CloudWatch::Alarm') {
    const dims = [p.Dimensions, ...(Array.isArray(p.Metrics) ? p.Metrics : []).map((m) => dig(m, 'MetricStat', 'Metric', 'Dimensions'))];
    const values = dims.flatMap((d) => (Array.isArray(d) ? d : [])).filter((d) => dig(d, 'Name') === Dimension.target);
    return [...new Set(values.map((d) => dig(d, 'Value')).filter((v): v is string => typeof v === 'string'))];
  }
  if (r.Type === 'AWS::Scheduler::Schedule') {
    const input = dig(p, 'Target', 'Input');
    if (typeof input !== 'string') return [];
    try {
      const targets = (JSON.parse(input) as { targets?: Array<{ name?: unknown }> }).targets;
      return (targets ?? []).map((t) => t.name).filter((n): n is string => typeof n === 'string');
    } catch {
      return [];
    }
  }
  return [];
}

function listed(names: string[]): string {
  const shown = names.slice(0, 3).map((n) => JSON.stringify(n));
  return names.length > 3 ? `${shown.join(', ')} and ${names.length - 3} more` : shown.join(', ');
}

export function dig(v: unknown, ...keys: string[]): unknown {
  let at = v;
  for (const k of keys) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The finding when `measured` is over the quota; `what` is `describe(...)`, or absent for the template. */
export function over(
  stack: string,
  quota: Quota,
  measured: number,
  at?: { logicalId: string; what: string },
  detail?: string,
): Finding | undefined {
  if (measured <= quota.limit) return undefined;
  const who = at ? at.what : 'the template';
  const message =
    `${stack}: ${who} has ${fmt(measured)} ${quota.noun}; ${quota.service} allows ${fmt(quota.limit)} ${quota.per}` +
    `${detail ? ` (${detail})` : ''}. Fix: ${quota.fix}.`;
  return {
    stack,
    logicalId: at?.logicalId,
    rule: quota.id,
    measured,
    limit: quota.limit,
    adjustable: quota.adjustable ?? false,
    source: quota.source,
    message,
  };
}
