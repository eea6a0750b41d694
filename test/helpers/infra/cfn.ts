/** Reading synthesized CloudFormation: intrinsics rendered as text, alarms as plain objects. */

/** `{ "Fn::Join": ["", ["arn:", { "Ref": "AWS::Partition" }, ...]] }` → `arn:${AWS::Partition}:...`. */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const v = value as Record<string, unknown>;
  if (v && 'Ref' in v) return `\${${String(v.Ref)}}`;
  if (v && 'Fn::GetAtt' in v) return `\${${(v['Fn::GetAtt'] as string[]).join('.')}}`;
  // `Fn::Sub` of one string already reads `arn:${AWS::Partition}:...`, the same text a rendered Join gives.
  if (v && 'Fn::Sub' in v && typeof v['Fn::Sub'] === 'string') return v['Fn::Sub'];
  if (v && 'Fn::Join' in v) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(sep);
  }
  return JSON.stringify(value);
}

export interface AlarmMetric {
  readonly Id: string;
  readonly Expression?: string;
  readonly ReturnData?: boolean;
  readonly MetricStat?: {
    readonly Metric: {
      readonly Namespace: string;
      readonly MetricName: string;
      readonly Dimensions: ReadonlyArray<{ Name: string; Value: unknown }>;
    };
    readonly Period: number;
    readonly Stat: string;
  };
}

export interface AlarmProps {
  readonly AlarmName: string;
  readonly AlarmDescription: string;
  readonly ComparisonOperator: string;
  readonly Threshold: number;
  readonly EvaluationPeriods: number;
  readonly DatapointsToAlarm: number;
  readonly TreatMissingData: string;
  /** Metric-math alarms. */
  readonly Metrics?: readonly AlarmMetric[];
  /** Single-metric alarms. */
  readonly MetricName?: string;
  readonly Namespace?: string;
  readonly Dimensions?: ReadonlyArray<{ Name: string; Value: unknown }>;
  readonly Statistic?: string;
  readonly Period?: number;
  readonly AlarmActions?: readonly unknown[];
  readonly OKActions?: readonly unknown[];
  readonly InsufficientDataActions?: readonly unknown[];
}

export function alarmsOf(template: { Resources?: Record<string, { Type: string; Properties?: unknown }> }): AlarmProps[] {
  return Object.values(template.Resources ?? {})
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .map((r) => r.Properties as AlarmProps);
}

/** `[{ Name, Value }]` → `{ Name: Value }`. */
export function dims(d: ReadonlyArray<{ Name: string; Value: unknown }>): Record<string, string> {
  return Object.fromEntries(d.map((x) => [x.Name, render(x.Value)]));
}
