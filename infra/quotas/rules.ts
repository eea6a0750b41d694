/**
 * The per-resource checks: each measures one resource (or a role with the policies attached to it) at
 * its longest and returns a finding for every quota it is over.
 */
import { LENGTH_RULES, type LengthRule } from './lengths.ts';
import type { Longest } from './longest.ts';
import { Quotas, type Quota } from './limits.ts';
import { describe, dig, over, type Finding, type Subject } from './finding.ts';
import type { CfnResource } from './template.ts';

export interface ResourceCheck {
  readonly l: Longest;
  readonly stack: string;
  readonly subject: Subject;
  /** Every resource of the template, for checks that gather (a role and its AWS::IAM::Policy). */
  readonly resources: Record<string, CfnResource>;
}

type Rule = (c: ResourceCheck, at: { logicalId: string; what: string }) => Array<Finding | undefined>;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** IAM does not count white space: the compact JSON CloudFormation sends has none outside strings. */
const policyCharacters = (l: Longest, doc: unknown) => (doc === undefined ? 0 : JSON.stringify(l.value(doc)).length);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const props = (c: ResourceCheck) => c.subject.resource.Properties ?? {};

/** Does this reference (`{ Ref: id }`, as `Roles` lists them) name the resource? */
const refersTo = (v: unknown, id: string) => dig(v, 'Ref') === id;

const role: Rule = (c, at) => {
  const { l, resources } = c;
  const id = c.subject.logicalId;
  const inline = list(props(c).Policies).map((p) => dig(p, 'PolicyDocument'));
  const attached = Object.values(resources)
    .filter((r) => (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::RolePolicy') && attachedTo(r, id))
    .map((r) => r.Properties?.PolicyDocument);
  const docs = [...inline, ...attached].filter((d) => d !== undefined).map((d) => JSON.stringify(l.value(d)));
  const characters = docs.reduce((n, d) => n + d.length, 0);
  // What grows a run role with its fleet: one resource per secret reference (named in the message).
  const secrets = docs.flatMap((d) => d.match(/arn:[^"]*?:(secretsmanager|ssm):[^"]*/g) ?? []).length;
  const managed =
    list(props(c).ManagedPolicyArns).length +
    Object.values(resources).filter((r) => r.Type === 'AWS::IAM::ManagedPolicy' && list(r.Properties?.Roles).some((x) => refersTo(x, id)))
      .length;
  return [
    over(
      c.stack,
      Quotas.rolePolicySize,
      characters,
      at,
      secrets > 0 ? `${secrets.toLocaleString('en-US')} of its resources are secrets its targets reference` : undefined,
    ),
    over(c.stack, Quotas.trustPolicySize, policyCharacters(l, props(c).AssumeRolePolicyDocument), at),
    over(c.stack, Quotas.managedPoliciesPerRole, managed, at),
  ];
};

function attachedTo(policy: CfnResource, roleId: string): boolean {
  const p = policy.Properties ?? {};
  return policy.Type === 'AWS::IAM::RolePolicy' ? refersTo(p.RoleName, roleId) : list(p.Roles).some((x) => refersTo(x, roleId));
}

const alarm: Rule = (c, at) => {
  const { l } = c;
  const p = props(c);
  const metrics = list(p.Metrics);
  const perState = ['AlarmActions', 'OKActions', 'InsufficientDataActions'].map((k) => list(p[k]).length);
  const dimensions = [list(p.Dimensions).length, ...metrics.map((m) => list(dig(m, 'MetricStat', 'Metric', 'Dimensions')).length)];
  return [
    over(c.stack, Quotas.alarmName, l.string(p.AlarmName ?? '').length, at),
    over(c.stack, Quotas.alarmDescription, l.string(p.AlarmDescription ?? '').length, at),
    over(c.stack, Quotas.alarmActions, Math.max(...perState), at),
    over(c.stack, Quotas.alarmMetrics, metrics.filter((m) => dig(m, 'MetricStat') !== undefined).length, at),
    over(c.stack, Quotas.alarmExpression, Math.max(0, ...metrics.map((m) => l.string(dig(m, 'Expression') ?? '').length)), at),
    over(c.stack, Quotas.alarmDimensions, Math.max(...dimensions), at),
    ...evaluationRange(c, p, metrics, at),
  ];
};

/** Period × EvaluationPeriods, against the one-day or seven-day limit the period puts it under. */
function evaluationRange(c: ResourceCheck, p: Record<string, unknown>, metrics: unknown[], at: Parameters<Rule>[1]) {
  const periods = [p.Period, ...metrics.map((m) => dig(m, 'MetricStat', 'Period'))].map((x) => Number(c.l.value(x))).filter((x) => x > 0);
  const evaluations = Number(c.l.value(p.EvaluationPeriods));
  if (periods.length === 0 || !(evaluations > 0)) return [];
  const period = Math.max(...periods);
  return [over(c.stack, period < 3600 ? Quotas.alarmEvaluationRange : Quotas.alarmLongEvaluationRange, period * evaluations, at)];
}

const compositeAlarm: Rule = (c, at) => {
  const { l } = c;
  const p = props(c);
  const rule = l.string(p.AlarmRule ?? '');
  const perState = ['AlarmActions', 'OKActions', 'InsufficientDataActions'].map((k) => list(p[k]).length);
  return [
    over(c.stack, Quotas.alarmName, l.string(p.AlarmName ?? '').length, at),
    over(c.stack, Quotas.alarmDescription, l.string(p.AlarmDescription ?? '').length, at),
    over(c.stack, Quotas.alarmActions, Math.max(...perState), at),
    over(c.stack, Quotas.compositeRuleLength, rule.length, at),
    over(c.stack, Quotas.compositeRuleAlarms, [...rule.matchAll(/\b(?:ALARM|OK|INSUFFICIENT_DATA)\(/g)].length, at),
  ];
};

const dashboard: Rule = (c, at) => {
  let body: { widgets?: Array<{ type?: string; properties?: { metrics?: unknown[]; alarms?: unknown[] } }> };
  try {
    body = JSON.parse(c.l.string(props(c).DashboardBody)) as typeof body;
  } catch {
    return []; // Not JSON once resolved: CloudWatch refuses it, and cfn-lint says so.
  }
  const widgets = body.widgets ?? [];
  // Rows of `metrics` that fetch a metric (a row of only `{ expression }` computes from the others).
  const perWidget = widgets.map(
    (w) => list(w.properties?.metrics).filter((row) => !(list(row).length === 1 && dig(list(row)[0], 'expression'))).length,
  );
  return [
    over(c.stack, Quotas.dashboardWidgets, widgets.length, at),
    over(c.stack, Quotas.dashboardWidgetMetrics, Math.max(0, ...perWidget), at),
    over(
      c.stack,
      Quotas.dashboardMetrics,
      perWidget.reduce((a, b) => a + b, 0),
      at,
    ),
    over(c.stack, Quotas.dashboardAlarms, Math.max(0, ...widgets.map((w) => list(w.properties?.alarms).length)), at),
  ];
};

const policyOf = (c: ResourceCheck) => c.l.value(props(c).PolicyDocument) as { Statement?: unknown };

const topicPolicy: Rule = (c, at) => {
  const doc = policyOf(c);
  return [
    over(c.stack, Quotas.snsPolicySize, bytes(JSON.stringify(doc)), at),
    over(c.stack, Quotas.snsPolicyStatements, list(doc.Statement).length, at),
  ];
};

const queuePolicy: Rule = (c, at) => {
  const doc = policyOf(c);
  const statements = list(doc.Statement);
  const conditions = statements.flatMap((s) =>
    Object.values((dig(s, 'Condition') ?? {}) as Record<string, object>).flatMap((o) => Object.keys(o)),
  ).length;
  const principals = statements.flatMap((s) => {
    const p = dig(s, 'Principal');
    return typeof p === 'string' ? [p] : Object.values((p ?? {}) as Record<string, unknown>).flatMap(list);
  }).length;
  return [
    over(c.stack, Quotas.sqsPolicySize, bytes(JSON.stringify(doc)), at),
    over(c.stack, Quotas.sqsPolicyStatements, statements.length, at),
    over(c.stack, Quotas.sqsPolicyConditions, conditions, at),
    over(c.stack, Quotas.sqsPolicyPrincipals, principals, at),
    over(c.stack, Quotas.sqsPolicyActions, Math.max(0, ...statements.map((s) => list(dig(s, 'Action')).length)), at),
  ];
};

const RULES: Record<string, Rule> = {
  'AWS::IAM::Role': role,
  'AWS::IAM::ManagedPolicy': (c, at) => [over(c.stack, Quotas.managedPolicySize, policyCharacters(c.l, props(c).PolicyDocument), at)],
  'AWS::CloudWatch::Alarm': alarm,
  'AWS::CloudWatch::CompositeAlarm': compositeAlarm,
  'AWS::CloudWatch::AlarmMuteRule': (c, at) => [
    over(c.stack, Quotas.muteRuleAlarms, list(dig(props(c), 'MuteTargets', 'AlarmNames')).length, at),
  ],
  'AWS::CloudWatch::Dashboard': dashboard,
  'AWS::Scheduler::Schedule': (c, at) => [
    over(c.stack, Quotas.scheduleInput, bytes(c.l.string(dig(props(c), 'Target', 'Input') ?? '')), at),
  ],
  // Lambda measures the variables as their JSON ("String measured: {...}" in its error).
  'AWS::Lambda::Function': (c, at) => [
    over(c.stack, Quotas.lambdaEnvironment, bytes(JSON.stringify(c.l.value(dig(props(c), 'Environment', 'Variables') ?? {}))), at),
    over(c.stack, Quotas.reservedConcurrency, Number(c.l.value(props(c).ReservedConcurrentExecutions ?? 0)), at),
  ],
  'AWS::SNS::TopicPolicy': topicPolicy,
  'AWS::SQS::QueuePolicy': queuePolicy,
  'AWS::Events::Rule': (c, at) => [
    over(c.stack, Quotas.ruleTargets, list(props(c).Targets).length, at),
    over(c.stack, Quotas.eventPattern, c.l.string(props(c).EventPattern ?? '').length, at),
  ],
};

function lengthQuota(rule: LengthRule): Quota {
  return {
    id: `length-${rule.type.split('::').slice(1).join('-').toLowerCase()}-${rule.property.toLowerCase()}`,
    service: rule.type.split('::')[1]!,
    limit: rule.max,
    noun: `characters in its ${rule.what} (at its longest)`,
    per: `per ${rule.what}`,
    source: rule.source,
    fix: rule.fix,
  };
}
const LENGTHS = LENGTH_RULES.map((r) => ({ rule: r, quota: lengthQuota(r) }));

/** Every finding for one resource. */
export function checkResource(c: ResourceCheck): Finding[] {
  const { resource, logicalId } = c.subject;
  // Described only when something is over: most resources are not.
  const at = {
    logicalId,
    get what() {
      return describe(c.l, c.subject);
    },
  };
  const found = RULES[resource.Type]?.(c, at) ?? [];
  for (const { rule, quota } of LENGTHS) {
    const value = rule.type === resource.Type ? resource.Properties?.[rule.property] : undefined;
    if (value !== undefined) found.push(over(c.stack, quota, c.l.string(value).length, at));
  }
  return found.filter((f): f is Finding => f !== undefined);
}
