/**
 * Cron fields as AWS reads them, for two dialects: CloudWatch alarm mute rules (five fields, day-of-week
 * 0–7 with Sunday 0 or 7) and EventBridge Scheduler (six fields with a year, day-of-week 1–7 with
 * Sunday 1, `?` in day-of-month or day-of-week, `L`, `W` and `#`). Sources: CloudWatch API reference,
 * `Schedule` (mute rules); EventBridge Scheduler User Guide, "Schedule types", cron-based schedules.
 * No cron library reads either dialect (they are Unix or Quartz cron), hence this.
 */

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

export interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** The first name's number (JAN = 1; SUN = 0 for mute rules, 1 for Scheduler). */
  readonly namesFrom?: number;
  /** `?`: any (Scheduler's day-of-month and day-of-week). */
  readonly any?: boolean;
  /** Scheduler's day-of-month `L`, `LW`, `15W`, or day-of-week `L`, `5L`, `3#2`. */
  readonly special?: 'day-of-month' | 'day-of-week';
}

export const MUTE_RULE_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, any: true },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: DAYS, namesFrom: 0, any: true },
];

export const SCHEDULER_FIELDS: readonly CronField[] = [
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, any: true, special: 'day-of-month' },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { name: 'day-of-week', min: 1, max: 7, names: DAYS, namesFrom: 1, any: true, special: 'day-of-week' },
  { name: 'year', min: 1970, max: 2199 },
];

function value(f: CronField, s: string): number | null {
  const i = f.names?.indexOf(s.toUpperCase()) ?? -1;
  if (i >= 0) return i + (f.namesFrom ?? 0);
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= f.min && n <= f.max ? n : null;
}

function specialProblem(f: CronField, item: string): string | null | undefined {
  if (f.special === 'day-of-month' && /^(L|LW|\d{1,2}W)$/.test(item)) {
    return item.endsWith('W') && item !== 'LW' && value(f, item.slice(0, -1)) === null ? `day-of-month "${item}" is not 1–31W` : null;
  }
  if (f.special === 'day-of-week') {
    if (item === 'L') return null;
    const last = /^(\w+)L$/.exec(item);
    if (last) return value(f, last[1]!) === null ? `day-of-week "${item}" is not 1–7L or SUN–SATL` : null;
    const nth = /^(\w+)#(\d)$/.exec(item);
    if (nth)
      return value(f, nth[1]!) === null || Number(nth[2]) < 1 || Number(nth[2]) > 5
        ? `day-of-week "${item}" is not day#1–5, e.g. 3#2`
        : null;
  }
  return undefined;
}

/** What is wrong with one field (`*`, n, a-b, a step like `*\/15` or `0-30/5`, lists of those), or null. */
export function fieldProblem(f: CronField, text: string): string | null {
  if (text === '?') return f.any ? null : `${f.name} cannot be "?" (only day-of-month and day-of-week can)`;
  const items = text.split(',');
  if (f.special === 'day-of-week' && text.includes('#') && items.length > 1) return `day-of-week "${text}" lists more than one "#" day`;
  for (const item of items) {
    const special = specialProblem(f, item);
    if (special !== undefined) {
      if (special) return special;
      continue;
    }
    const [range, step, extra] = item.split('/');
    if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step)))
      return `${f.name} "${item}" has a bad step: write */15 or 0-30/5`;
    if (range === '*') continue;
    const [from, to, more] = (range ?? '').split('-');
    if (more !== undefined || from === undefined || value(f, from) === null || (to !== undefined && value(f, to) === null)) {
      return `${f.name} "${item}" is not ${f.min}–${f.max}${f.names ? ` or ${f.names[0]}–${f.names.at(-1)}` : ''}`;
    }
    if (to !== undefined && value(f, to)! < value(f, from)!) return `${f.name} range "${range}" runs backwards`;
  }
  return null;
}

/** The fields inside `cron(…)`, or null when `s` is not a cron expression at all. */
export function cronFields(s: string): string[] | null {
  const cron = /^cron\((.*)\)$/.exec(s.trim());
  return cron ? cron[1]!.trim().split(/\s+/) : null;
}

/** The values a plain field (numbers, names, ranges, steps) selects; null for `?`, `L`, `W` or `#`. */
export function expand(f: CronField, text: string): Set<number> | null {
  if (text === '?' || /[LW#]/.test(text.replace(/[A-Z]{3}/gi, (m) => (f.names?.includes(m.toUpperCase()) ? '0' : m)))) return null;
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const [range, step] = item.split('/');
    const [from, to] = range === '*' ? [String(f.min), String(f.max)] : range!.split('-');
    const a = value(f, from!);
    const b = to === undefined ? (step === undefined ? a : f.max) : value(f, to);
    if (a === null || b === null) return null;
    for (let n = a; n <= b; n += Number(step ?? 1)) out.add(n);
  }
  return out;
}

/** The days in each month of a leap year: a cron day exists in a month if it is at most this. */
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when the day-of-month and month fields select no real date (30 FEB, 31 APR): it never runs. */
export function neverFires(dayOfMonth: Set<number> | null, month: Set<number> | null): boolean {
  if (!dayOfMonth || !month) return false;
  return ![...month].some((m) => [...dayOfMonth].some((d) => d <= DAYS_IN_MONTH[m - 1]!));
}
