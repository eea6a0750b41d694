/** How the text and the HTML say durations, percentages, instants and what an incident is known to be. */
import { NO_FAILED_RUN_LOGGED } from '../../io/history/read.ts';
import type { ReportIncident, ReportTarget } from './report.ts';

/** 0 → "0m", 45 → "45s", 420 → "7m", 3900 → "1h 05m", 183600 → "2d 03h". */
export function span(seconds: number): string {
  const n = Math.round(Math.abs(seconds));
  const sign = seconds < 0 ? '-' : '';
  if (n === 0) return '0m';
  if (n < 60) return `${sign}${n}s`;
  const m = Math.round(n / 60);
  if (m < 60) return `${sign}${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${sign}${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${sign}${Math.floor(h / 24)}d ${String(h % 24).padStart(2, '0')}h`;
}

/** 99.95234 → "99.952 %"; null → "—" (nothing judged). */
export function percent(p: number | null, digits = 3): string {
  return p === null ? '—' : `${p.toFixed(digits)} %`;
}

/** "2026-11-03 04:12 UTC". */
export function when(isoText: string): string {
  return `${isoText.slice(0, 10)} ${isoText.slice(11, 16)} UTC`;
}

/** An incident's end as the text and the HTML say it: still open only when the window ends now. */
export function openWords(endsNow: boolean): string {
  return endsNow ? 'still open' : 'open at the end of the window';
}

/** "$0.00004" at the precision that shows it. */
export function usd(x: number): string {
  if (x === 0) return '$0';
  return `$${x < 0.01 ? x.toPrecision(2) : x.toFixed(2)}`;
}

/** An incident's class, or why there is none: known none ("no failed run logged …"), or "class unknown: <what could not be read>". */
export function classWords(i: Pick<ReportIncident, 'failureClass' | 'failureClassNote'>): string {
  if (i.failureClass !== null) return i.failureClass;
  if (i.failureClassNote === NO_FAILED_RUN_LOGGED) return i.failureClassNote;
  return `class unknown${i.failureClassNote ? `: ${i.failureClassNote}` : ''}`;
}

/** "paged", "not-paged" (known: the alarm exists and its history shows none), or "alarm unknown: <why>". */
export function alarmWords(i: Pick<ReportIncident, 'alarm' | 'alarmNote'>): string {
  return i.alarm === 'unknown' ? `alarm unknown${i.alarmNote ? `: ${i.alarmNote}` : ''}` : i.alarm;
}

/**
 * "2", "2 (1 open)", "1 (+1 in maintenance)": the incidents counted against availability, and the ones
 * listed but wholly inside maintenance beside them, so the count names every incident the list shows.
 */
export function incidentCount(t: Pick<ReportTarget, 'timeToResolve' | 'incidents'>): string {
  const muted = t.incidents.filter((i) => i.maintenance === 'inside').length;
  const notes = [...(t.timeToResolve.open ? [`${t.timeToResolve.open} open`] : []), ...(muted ? [`+${muted} in maintenance`] : [])];
  return `${t.timeToResolve.incidents}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}
