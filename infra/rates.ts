/** EventBridge rate expressions as the fleet schema admits them: whole minutes or hours. */

/** `rate(5 minutes)` → 300. */
export function periodSeconds(schedule: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(schedule);
  if (!m) throw new Error(`not a rate expression: ${schedule}`);
  return Number(m[1]) * (m[2]!.startsWith('hour') ? 3600 : 60);
}

/** `rate(5 minutes)` → `5m`; `rate(1 hour)` → `1h`: names a schedule and its function. */
export function rateSlug(schedule: string): string {
  const s = periodSeconds(schedule);
  return s % 3600 === 0 ? `${s / 3600}h` : `${s / 60}m`;
}
