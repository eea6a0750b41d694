/**
 * CloudWatch alarm evaluation as the CloudWatch User Guide documents it, to replay run sequences through
 * the synthesized alarm definitions offline (moto stores alarms but never evaluates them):
 *
 * - Metric math ("Using metric math"): arithmetic treats a missing value as 0 wherever another operand
 *   has one; `TS op scalar` comparisons keep gaps; comparisons and logical operators between two series
 *   treat the one missing value as 0; IF follows the documented per-syntax tables; FLOOR is per point.
 * - Evaluation ("Evaluating an alarm", "How alarm state is evaluated when data is missing"): CloudWatch
 *   fetches more points than EvaluationPeriods (the guide's example: 5 for 3); if at least N of them
 *   exist, the newest N existing ones are evaluated and missing data treatment is ignored; otherwise all
 *   existing ones plus as few filled-in points as needed make N; ALARM if ≥ DatapointsToAlarm breach.
 */

/** A series over period indexes; an absent index is a missing data point. */
export type Series = ReadonlyMap<number, number>;
type Value = { kind: 'ts'; ts: Series } | { kind: 's'; s: number };

/** The guide's example fetches 5 points for an alarm with 3 evaluation periods. */
export const EVALUATION_RANGE_EXTRA = 2;

// ---- metric math ------------------------------------------------------------------------------

type Token = { t: 'num'; v: number } | { t: 'id'; v: string } | { t: 'op'; v: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(>=|<=|==|!=|&&|\|\||[-+*/^(),<>]))/y;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < src.length && (m = re.exec(src))) {
    pos = re.lastIndex;
    if (m[1] !== undefined) out.push({ t: 'num', v: Number(m[1]) });
    else if (m[2] !== undefined)
      out.push(m[2] === 'AND' || m[2] === 'OR' ? { t: 'op', v: m[2] === 'AND' ? '&&' : '||' } : { t: 'id', v: m[2] });
    else out.push({ t: 'op', v: m[3]! });
  }
  if (src.slice(pos).trim()) throw new Error(`cannot read metric math at: ${src.slice(pos)}`);
  return out;
}

/** Evaluates an expression over named series (metric ids → data). Only what CloudWatch documents. */
export function evaluateExpression(expression: string, data: ReadonlyMap<string, Series>): Series {
  const tokens = tokenize(expression);
  let i = 0;
  const peek = () => tokens[i];
  const take = (v?: string) => {
    const tok = tokens[i++];
    if (!tok || (v !== undefined && tok.v !== v)) throw new Error(`expected ${v ?? 'a token'} in ${expression}`);
    return tok;
  };
  const binary = (next: () => Value, ops: string[]) => (): Value => {
    let left = next();
    while (peek()?.t === 'op' && ops.includes(peek()!.v as string)) {
      const op = take().v as string;
      left = apply(op, left, next());
    }
    return left;
  };
  const primary = (): Value => {
    const tok = take();
    if (tok.t === 'num') return { kind: 's', s: tok.v };
    if (tok.t === 'op' && tok.v === '(') {
      const v = or();
      take(')');
      return v;
    }
    if (tok.t === 'op' && tok.v === '-') return apply('*', { kind: 's', s: -1 }, primary());
    if (tok.t === 'id' && tok.v === 'IF') {
      take('(');
      const cond = or();
      take(',');
      const yes = or();
      let no: Value | undefined;
      if (peek()?.v === ',') {
        take(',');
        no = or();
      }
      take(')');
      return ifValue(cond, yes, no);
    }
    if (tok.t === 'id' && tok.v === 'FLOOR') {
      // "Returns the floor of each metric": per point, so a missing point stays missing.
      take('(');
      const v = or();
      take(')');
      return v.kind === 's'
        ? { kind: 's', s: Math.floor(v.s) }
        : { kind: 'ts', ts: new Map([...v.ts].map(([t, x]) => [t, Math.floor(x)])) };
    }
    if (tok.t === 'id' && /^[a-z]/.test(tok.v)) {
      const ts = data.get(tok.v);
      if (!ts) throw new Error(`metric id ${tok.v} has no data`);
      return { kind: 'ts', ts };
    }
    throw new Error(`not modelled: ${String(tok.v)} in ${expression}`);
  };
  const mul = binary(primary, ['*', '/']);
  const add = binary(mul, ['+', '-']);
  const cmp = binary(add, ['>=', '<=', '>', '<', '==', '!=']);
  const and = binary(cmp, ['&&']);
  const or = binary(and, ['||']);
  const result = or();
  if (i !== tokens.length) throw new Error(`trailing tokens in ${expression}`);
  if (result.kind !== 'ts') throw new Error(`an alarm expression must return a time series: ${expression}`);
  return result.ts;
}

function op(o: string, a: number, b: number): number | undefined {
  switch (o) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return b === 0 ? undefined : a / b; // "the data point is dropped"
    case '>=':
      return Number(a >= b);
    case '<=':
      return Number(a <= b);
    case '>':
      return Number(a > b);
    case '<':
      return Number(a < b);
    case '==':
      return Number(a === b);
    case '!=':
      return Number(a !== b);
    case '&&':
      return Number(a !== 0 && b !== 0);
    case '||':
      return Number(a !== 0 || b !== 0);
  }
  throw new Error(`operator ${o}`);
}

function apply(o: string, a: Value, b: Value): Value {
  if (a.kind === 's' && b.kind === 's') return { kind: 's', s: op(o, a.s, b.s) ?? NaN };
  const out = new Map<number, number>();
  if (a.kind === 'ts' && b.kind === 'ts') {
    // Arithmetic: "missing values are treated as 0"; comparisons/logic between two series: "treats the
    // missing value in the other time series as 0". Either way: union of timestamps, gaps as 0.
    for (const t of new Set([...a.ts.keys(), ...b.ts.keys()])) {
      const v = op(o, a.ts.get(t) ?? 0, b.ts.get(t) ?? 0);
      if (v !== undefined) out.set(t, v);
    }
  } else {
    // A series with a scalar: a value only where the series has one.
    const [ts, s, left] =
      a.kind === 'ts' ? [a.ts, (b as { s: number }).s, true] : [(b as { ts: Series }).ts, (a as { s: number }).s, false];
    for (const [t, x] of ts) {
      const v = left ? op(o, x, s) : op(o, s, x);
      if (v !== undefined) out.set(t, v);
    }
  }
  return { kind: 'ts', ts: out };
}

/** IF, per the guide's tables for `IF(TS, TS|S, TS|S)` and `IF(S, TS, TS)`. */
function ifValue(cond: Value, yes: Value, no: Value | undefined): Value {
  if (cond.kind === 's') {
    if (cond.s !== 0) return yes;
    return no ?? { kind: 'ts', ts: new Map() };
  }
  const out = new Map<number, number>();
  for (const [t, c] of cond.ts) {
    if (c !== 0) {
      // TRUE: the true value; 0 when the true series has no point there.
      out.set(t, yes.kind === 's' ? yes.s : (yes.ts.get(t) ?? 0));
    } else if (no !== undefined) {
      // FALSE: the false value; dropped when the false series has no point there.
      const v = no.kind === 's' ? no.s : no.ts.get(t);
      if (v !== undefined) out.set(t, v);
    }
  }
  return { kind: 'ts', ts: out };
}

// ---- alarm evaluation -------------------------------------------------------------------------

export type Treatment = 'breaching' | 'notBreaching' | 'ignore' | 'missing';
export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
export type Comparison = 'GreaterThanOrEqualToThreshold' | 'GreaterThanThreshold' | 'LessThanThreshold' | 'LessThanOrEqualToThreshold';

export interface AlarmRule {
  readonly comparison: Comparison;
  readonly threshold: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly treatMissingData: Treatment;
}

export function breaches(rule: Pick<AlarmRule, 'comparison' | 'threshold'>, v: number): boolean {
  switch (rule.comparison) {
    case 'GreaterThanOrEqualToThreshold':
      return v >= rule.threshold;
    case 'GreaterThanThreshold':
      return v > rule.threshold;
    case 'LessThanThreshold':
      return v < rule.threshold;
    case 'LessThanOrEqualToThreshold':
      return v <= rule.threshold;
  }
}

export interface Evaluation {
  readonly state: AlarmState;
  /** The points that decided it, oldest first (empty when the state was kept or is INSUFFICIENT_DATA). */
  readonly evaluated: Array<{ value: number | undefined; breaching: boolean }>;
}

/**
 * The state after one evaluation, given the evaluation range oldest first (`undefined` = missing) and
 * the current state, by the User Guide's rules ("How alarm state is evaluated when data is missing"):
 * - at least EvaluationPeriods existing points: the newest that many are evaluated, treatment unused;
 * - fewer: `breaching`/`notBreaching` fill the newest missing slots, as few as needed;
 * - fewer, `missing`/`ignore`: none at all is INSUFFICIENT_DATA / the current state; only breaching
 *   points is ALARM when the oldest of them is at least DatapointsToAlarm periods old, else
 *   INSUFFICIENT_DATA (`missing`), and the current state (`ignore`); otherwise the existing points are
 *   counted. Every row of the guide's two tables holds (test/unit/infra/replay.test.ts).
 */
export function evaluateRange(
  rule: AlarmRule,
  range: ReadonlyArray<number | undefined>,
  current: AlarmState = 'INSUFFICIENT_DATA',
): Evaluation {
  const n = rule.evaluationPeriods;
  const m = rule.datapointsToAlarm;
  const existing = range.map((v, i) => ({ v, i })).filter((x): x is { v: number; i: number } => x.v !== undefined);
  const point = (x: { v: number | undefined; i: number }, breaching: boolean) => ({ value: x.v, breaching, i: x.i });
  // `evaluated` comes in period order (the one mixed list is sorted where it is made).
  const decide = (evaluated: Array<{ value: number | undefined; breaching: boolean; i: number }>): Evaluation => {
    const sorted = evaluated.map(({ value, breaching }) => ({ value, breaching }));
    return { state: sorted.filter((e) => e.breaching).length >= m ? 'ALARM' : 'OK', evaluated: sorted };
  };
  if (existing.length >= n) return decide(existing.slice(-n).map((x) => point(x, breaches(rule, x.v))));
  if (rule.treatMissingData === 'breaching' || rule.treatMissingData === 'notBreaching') {
    const missing = range
      .map((v, i) => ({ v, i }))
      .filter((x) => x.v === undefined)
      .slice(-(n - existing.length));
    return decide(
      [...existing.map((x) => point(x, breaches(rule, x.v))), ...missing.map((x) => point(x, rule.treatMissingData === 'breaching'))].sort(
        (a, b) => a.i - b.i,
      ),
    );
  }
  const keep = (): Evaluation => ({ state: rule.treatMissingData === 'ignore' ? current : 'INSUFFICIENT_DATA', evaluated: [] });
  if (existing.length === 0) return keep();
  if (existing.every((x) => breaches(rule, x.v))) {
    const oldestAge = range.length - existing[0]!.i;
    // The guide's "X - - - -": ALARM "because the oldest evaluated data point is breaching and there
    // aren't any non-breaching data points".
    if (rule.treatMissingData === 'missing' && oldestAge >= m)
      return { state: 'ALARM', evaluated: existing.map((x) => ({ value: x.v, breaching: true })) };
    return keep();
  }
  return decide(existing.map((x) => point(x, breaches(rule, x.v))));
}
