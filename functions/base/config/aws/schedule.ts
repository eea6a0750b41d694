/**
 * A target's `schedule`: what EventBridge Scheduler accepts as a schedule expression, and which of those
 * the canary can run. Source: EventBridge Scheduler User Guide, "Schedule types on EventBridge Scheduler":
 *
 * - `rate(value unit)`: a positive whole number and minute | minutes | hour | hours | day | days, the
 *   singular for 1 and the plural otherwise (`rate(1 minutes)` and `rate(5 minute)` are refused).
 * - `cron(minutes hours day-of-month month day-of-week year)`: six fields, `?` in exactly one of the
 *   two day fields.
 * - `at(yyyy-mm-ddThh:mm:ss)`: once.
 *
 * The canary needs a rate: its alarms count failed runs in a row, one run per alarm period, so the runs
 * must be evenly spaced. A valid cron or at expression is refused with that reason and the rate to write.
 */
import { cronFields, expand, fieldProblem, SCHEDULER_FIELDS } from './cron.ts';
import { didYouMean } from '../words/did-you-mean.ts';

const UNIT_SECONDS = { minute: 60, hour: 3600, day: 86_400 } as const;
type Unit = keyof typeof UNIT_SECONDS;

/** `rate(5 minutes)` → 300; null when `s` is not a rate expression Scheduler accepts. */
export function rateSeconds(s: string): number | null {
  const m = /^rate\(([1-9]\d*) (minute|hour|day)(s?)\)$/.exec(s);
  if (!m || (m[1] === '1') !== (m[3] === '')) return null;
  return Number(m[1]) * UNIT_SECONDS[m[2] as Unit];
}

/** `rate(N unit)` for a period, singular or plural as Scheduler wants it. */
export function rateFor(seconds: number): string {
  const [n, unit] =
    seconds % 86_400 === 0 ? [seconds / 86_400, 'day'] : seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : [seconds / 60, 'minute'];
  return `rate(${n} ${unit}${n === 1 ? '' : 's'})`;
}

/**
 * Anything a user meant as a rate: `rate` in any case, spaces anywhere, value and unit with or without a
 * space between. One grammar reads them all, so every variant gets the same kind of message: what is
 * wrong (spacing, case, singular or plural) and the exact expression to write.
 */
const LOOSE_RATE = /^\s*rate\s*\((.*)\)\s*$/i;

function rateProblem(s: string): string | null {
  const m = LOOSE_RATE.exec(s);
  if (!m) return null;
  const parts = /^\s*(\S*?)\s*([A-Za-z]+)\s*$/.exec(m[1]!);
  if (!parts || parts[1] === '') return `${s} is not a rate: write rate(value unit), e.g. rate(1 minute) or rate(5 minutes)`;
  const [, value, unit] = parts as unknown as [string, string, string];
  if (!/^[1-9]\d*$/.test(value)) return `${s} has value "${value}"; a rate's value is a whole number of 1 or more, e.g. rate(5 minutes)`;
  const lower = unit.toLowerCase();
  const singular = lower.replace(/s$/, '') as Unit;
  if (!(singular in UNIT_SECONDS)) {
    const hint = didYouMean(unit, ['minute', 'minutes', 'hour', 'hours', 'day', 'days']);
    return `${s} has unit "${unit}"${hint}; EventBridge Scheduler's units are minute(s), hour(s) and day(s)`;
  }
  const want = value === '1' ? singular : `${singular}s`;
  const exact = `rate(${value} ${want})`;
  if (s === exact) return null;
  const wrong: string[] = [];
  const word = s.trim().slice(0, 4);
  const spacing = s !== `${word}(${value} ${unit})`;
  if (spacing) wrong.push('exactly one space, between the value and the unit, and no other');
  if (word !== 'rate' || unit !== lower) wrong.push('lower case');
  if (lower !== want) wrong.push(`"${want}" ${value === '1' ? 'for 1' : 'for more than 1'}`);
  return `${spacing ? JSON.stringify(s) : s} is not valid: EventBridge Scheduler wants ${wrong.join('; ')}. Write ${exact}`;
}

function cronProblem(s: string): string | null {
  const fields = cronFields(s);
  if (!fields) return null;
  if (fields.length !== 6)
    return `${s} has ${fields.length} field(s); an EventBridge Scheduler cron has 6 (minutes hours day-of-month month day-of-week year), e.g. cron(0/5 * * * ? *)`;
  for (const [i, f] of SCHEDULER_FIELDS.entries()) {
    const problem = fieldProblem(f, fields[i]!);
    if (problem) return `${s}: ${problem}`;
  }
  if ((fields[2] === '?') === (fields[4] === '?'))
    return `${s} needs "?" in exactly one of day-of-month and day-of-week (EventBridge Scheduler's rule), e.g. cron(0 8 * * ? *)`;
  return null;
}

function atProblem(s: string): string | null {
  const at = /^at\((.*)\)$/.exec(s);
  if (!at) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(at[1]!);
  const date = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
  const real = m && date && date.getUTCMonth() === +m[2]! - 1 && date.getUTCDate() === +m[3]! && +m[4]! < 24 && +m[5]! < 60 && +m[6]! < 60;
  return real ? null : `${s} is not at(yyyy-mm-ddThh:mm:ss) with a real date and time, e.g. at(2027-03-31T08:00:00)`;
}

/** Why `s` is not a schedule expression EventBridge Scheduler accepts, or null. */
export function schedulerProblem(s: string): string | null {
  const rate = rateProblem(s);
  if (rate !== null || LOOSE_RATE.test(s)) return rate;
  if (!/^(rate|cron|at)\(.*\)$/.test(s)) {
    return `${JSON.stringify(s)} is not an EventBridge Scheduler expression: write rate(value unit), e.g. rate(1 minute) or rate(5 minutes)`;
  }
  return cronProblem(s) ?? atProblem(s);
}

/**
 * Why a valid Scheduler expression is one the canary cannot run, or null for a rate. A cron that fires
 * at a fixed interval (`cron(0/5 * * * ? *)`) is named by the rate it equals.
 */
export function canaryScheduleProblem(s: string): string | null {
  if (rateSeconds(s) !== null) return null;
  const why = "the canary's alarms count failed runs in a row, one run per period, so it runs on a rate";
  if (s.startsWith('at(')) return `${s} is a one-time schedule: ${why}. Write a rate, e.g. rate(1 minute)`;
  const even = evenCronSeconds(cronFields(s) ?? []);
  if (even !== null) return `${s} runs at a fixed interval, but as a cron: ${why}. Write ${rateFor(even)}, the same interval`;
  return `${s} is a valid EventBridge Scheduler cron, but its runs are not evenly spaced: ${why}. Write a rate, e.g. rate(5 minutes)`;
}

/** The interval of a cron that fires every N minutes or every N hours all day every day, else null. */
function evenCronSeconds(fields: readonly string[]): number | null {
  if (fields.length !== 6 || !['*', '?'].includes(fields[2]!) || !['*', '?'].includes(fields[4]!) || fields[3] !== '*' || fields[5] !== '*')
    return null;
  const [minutes, hours] = [expand(SCHEDULER_FIELDS[0]!, fields[0]!), expand(SCHEDULER_FIELDS[1]!, fields[1]!)];
  const step = (set: Set<number> | null, size: number): number | null => {
    const v = [...(set ?? [])];
    if (v.length === 0 || size % v.length !== 0) return null;
    const gap = size / v.length;
    return v.every((x, i) => x === v[0]! + i * gap) ? gap : null;
  };
  if (hours?.size === 24) {
    const gap = step(minutes, 60);
    return gap === null ? null : gap * 60;
  }
  const gap = minutes?.size === 1 ? step(hours, 24) : null;
  return gap === null ? null : gap * 3600;
}
