/** A period as the stacks name it; the period itself is the target's rule's (functions/base/config/schema/target-rule.ts). */

/** 300 → `5m`; 3600 → `1h`; 172800 → `48h`: names a schedule and its function. */
export function rateSlug(periodSeconds: number): string {
  return periodSeconds % 3600 === 0 ? `${periodSeconds / 3600}h` : `${periodSeconds / 60}m`;
}
