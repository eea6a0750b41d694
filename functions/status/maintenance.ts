/**
 * When a maintenance window was, is and will be: its occurrences between two instants. A mute rule's cron
 * is five fields in its time zone (functions/config/maintenance.ts checks them at synth); no cron library
 * reads that dialect (see config/cron.ts), so the days are walked here, in the window's wall clock.
 */
import { cronFields, expand, MUTE_RULE_FIELDS } from '../config/cron.ts';
import { durationMinutes, windowEnd, zonedToUtc } from '../config/maintenance.ts';

export interface Occurrence {
  readonly start: number;
  readonly end: number;
}
interface Window {
  readonly schedule: string;
  readonly duration: string;
  readonly timezone?: string;
}

const DAY_MS = 86_400_000;
/** A window can start before `from` and still be on: look back as far as the longest one lasts (15 days). */
const LOOK_BACK_MS = 15 * DAY_MS;

/** The occurrences that overlap [from, to), oldest first; overlapping or touching ones merged into one. */
export function occurrences(w: Window, from: number, to: number): Occurrence[] {
  const minutes = durationMinutes(w.duration);
  if (minutes === null) return [];
  const length = minutes * 60_000;
  const end = windowEnd(w);
  const starts = end !== null ? [end.getTime() - length] : cronStarts(w.schedule, w.timezone ?? 'UTC', from - LOOK_BACK_MS, to);
  const merged: Occurrence[] = [];
  for (const start of starts.sort((a, b) => a - b)) {
    const last = merged[merged.length - 1];
    if (last && start <= last.end) merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, start + length) };
    else merged.push({ start, end: start + length });
  }
  return merged.filter((o) => o.end > from && o.start < to);
}

function cronStarts(schedule: string, zone: string, from: number, to: number): number[] {
  const fields = cronFields(schedule);
  if (!fields || fields.length !== 5) return [];
  const [minute, hour, dom, month, dow] = fields.map((text, i) => expand(MUTE_RULE_FIELDS[i]!, text));
  const days = dow && new Set([...dow].map((d) => d % 7));
  const out: number[] = [];
  // Wall-clock days, a day either side: the zone's offset moves a wall day across UTC midnight.
  for (let day = Math.floor(from / DAY_MS) * DAY_MS - DAY_MS; day <= to + DAY_MS; day += DAY_MS) {
    const d = new Date(day);
    if (month && !month.has(d.getUTCMonth() + 1)) continue;
    if (dom && fields[2] !== '*' && !dom.has(d.getUTCDate())) continue;
    if (days && fields[4] !== '*' && !days.has(d.getUTCDay())) continue;
    for (const h of hour ?? []) for (const m of minute ?? []) out.push(zonedToUtc(day + h * 3_600_000 + m * 60_000, zone));
  }
  return out.filter((t) => t >= from && t < to);
}
