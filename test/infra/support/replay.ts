/**
 * Run sequences → the synthesized alarms' notifications. A sequence is one character per run and
 * region: H healthy, D degraded, I inconclusive, F failed, - no run recorded. Each run is published as
 * the run does it (one `Outcome` datapoint per target·region·period), then every alarm of the target is
 * evaluated after every run with the documented CloudWatch rules.
 */
import { OutcomeCode } from '../../../functions/publish/schema.ts';
import type { Outcome } from '../../../functions/verdict.ts';
import type { AlarmProps } from './cfn.ts';
import { dims, render } from './cfn.ts';
import { evaluateExpression, replay, type AlarmRule, type Comparison, type Series, type Transition, type Treatment } from './cloudwatch-alarm.ts';

export const RUN_CODES: Readonly<Record<string, Outcome | null>> = { H: 'healthy', D: 'degraded', I: 'inconclusive', F: 'failed', '-': null };

export interface Notification {
  readonly alarm: string;
  readonly run: number;
  readonly state: 'ALARM' | 'OK';
  readonly topics: readonly string[];
  readonly transition: Transition;
}

/** Runs before the scenario so every alarm starts in OK (never shown, never counted). */
export function baselineRuns(alarms: readonly AlarmProps[]): number {
  return Math.max(...alarms.map((a) => a.EvaluationPeriods)) + 2;
}

/** `{ region: 'FFH-' }` → notifications of the given alarms, runs counted from the scenario's first. */
export function replayScenario(alarms: readonly AlarmProps[], runs: Readonly<Record<string, string>>): Notification[] {
  const length = Math.max(...Object.values(runs).map((r) => r.length));
  const base = baselineRuns(alarms);
  const notifications: Notification[] = [];
  for (const alarm of alarms) {
    const data = new Map<string, Series>();
    for (const m of alarm.Metrics) {
      if (!m.MetricStat) continue;
      const region = dims(m.MetricStat.Metric.Dimensions).ProbeRegion!;
      const seq = 'H'.repeat(base) + (runs[region] ?? 'H'.repeat(length));
      const series = new Map<number, number>();
      [...seq].forEach((ch, k) => {
        if (!(ch in RUN_CODES)) throw new Error(`unknown run "${ch}"`);
        const outcome = RUN_CODES[ch];
        if (outcome === null) return;
        if (m.MetricStat!.Stat === 'Maximum') series.set(k + 1, OutcomeCode[outcome!]);
        else if (m.MetricStat!.Stat === 'SampleCount') series.set(k + 1, 1);
        else throw new Error(`stat ${m.MetricStat!.Stat} not modelled`);
      });
      data.set(m.Id, series);
    }
    const expression = alarm.Metrics.find((m) => m.Expression !== undefined && m.ReturnData !== false)!.Expression!;
    const series = evaluateExpression(expression, data);
    for (const t of replay(ruleOf(alarm), series, base + length)) {
      if (t.run <= base) continue;
      if (t.to === 'ALARM') notifications.push({ alarm: alarm.AlarmName, run: t.run - base, state: 'ALARM', topics: (alarm.AlarmActions ?? []).map(render), transition: t });
      if (t.to === 'OK') notifications.push({ alarm: alarm.AlarmName, run: t.run - base, state: 'OK', topics: (alarm.OKActions ?? []).map(render), transition: t });
    }
  }
  return notifications.sort((a, b) => a.run - b.run);
}

export function ruleOf(a: AlarmProps): AlarmRule {
  return {
    comparison: a.ComparisonOperator as Comparison,
    threshold: a.Threshold,
    evaluationPeriods: a.EvaluationPeriods,
    datapointsToAlarm: a.DatapointsToAlarm,
    treatMissingData: a.TreatMissingData as Treatment,
  };
}
