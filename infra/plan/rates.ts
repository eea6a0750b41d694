/** A target's schedule as the stacks need it: the fleet schema admits only rates (functions/base/config/aws/schedule.ts). */
import { rateSeconds } from '../../functions/base/config/aws/schedule.ts';

/** `rate(5 minutes)` → 300; `rate(1 day)` → 86400. */
export function periodSeconds(schedule: string): number {
  const seconds = rateSeconds(schedule);
  // Cannot happen: the fleet schema admits only rates, so this is an invariant, not a config error (which would exit 2).
  if (seconds === null) throw new Error(`not a rate expression: ${schedule}`);
  return seconds;
}

/** `rate(5 minutes)` → `5m`; `rate(1 hour)` → `1h`; `rate(2 days)` → `48h`: names a schedule and its function. */
export function rateSlug(schedule: string): string {
  const s = periodSeconds(schedule);
  return s % 3600 === 0 ? `${s / 3600}h` : `${s / 60}m`;
}
