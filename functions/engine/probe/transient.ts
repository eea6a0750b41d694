/**
 * Pure: an answer that says "not now" — a rate limit, an overloaded or restarting server, a gateway that
 * could not reach it, a request timed out at the server — is judged as what it is before any era
 * reasoning: it is no evidence of what the server speaks (a 429 to `server/discover` is not "a 2025
 * server"), it is worth another attempt within the run, and the server's `Retry-After` is when.
 *
 * A 500 is not in the set: real servers answer discover with a 500 while serving 2025 sessions fine, so
 * it keeps its fallback (connect.ts). Any failed status that carries `Retry-After` is transient too: the
 * server said when to come back (RFC 9110 §10.2.3).
 */

/** 408 Request Timeout, 425 Too Early, 429 Too Many Requests, 502 Bad Gateway, 503 Service Unavailable, 504 Gateway Timeout. */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 502, 503, 504]);

/** Whether an answer of `status` (with the `Retry-After` it carried) says "not now" rather than anything about the server. */
export function isTransient(status: number | null | undefined, retryAfter?: string | null): boolean {
  if (status === null || status === undefined) return false;
  return TRANSIENT_STATUSES.has(status) || (status >= 400 && Boolean(retryAfter?.trim()));
}

/** Retry-After (delta-seconds or an HTTP-date) in milliseconds from `now`; null when it says neither. */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1_000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
