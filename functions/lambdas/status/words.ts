/**
 * The page's sentences: incidents and maintenance in plain words, UTC throughout (a status page read from
 * every time zone says which one it means). "Search tools failed for agents from 2 of 3 regions,
 * 14:02–14:31 UTC (29 min)." The date is left out only for today.
 */
import type { FailureClass } from '../../base/common/verdict.ts';

const MINUTE_MS = 60_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Each failure class as a reader without the taxonomy says it. */
const CAUSES: Record<FailureClass, string> = {
  unreachable: 'the endpoint could not be reached',
  tls: 'its TLS certificate or handshake was refused',
  timeout: 'it did not answer in time',
  http_status: 'it answered with an HTTP error',
  auth: "it refused the canary's credentials",
  protocol: 'its answers were not valid MCP',
  session_lost: 'it kept losing its session',
  revision: 'it answered in an unexpected MCP protocol revision',
  server_error: 'the server reported an internal error',
  tool_missing: 'the checked tool was missing',
  capability_missing: 'it no longer offers the resources or prompts the canary checks',
  tool_error: 'the checked tool answered with an error',
  assertion: "the checked tool's answer was wrong",
  unsafe_tool: 'the checked tool is not marked read-only, so it was not called',
  canary_credential: "the canary's own sign-in needs renewing (the endpoint itself was not judged)",
  gateway_down: 'not checked: the gateway in front of it is down',
};

export function causeWords(failureClass: string | undefined): string | undefined {
  // Own keys only: "constructor" or "__proto__" from a log line must not read Object's prototype.
  return failureClass !== undefined && Object.hasOwn(CAUSES, failureClass) ? (CAUSES as Record<string, string>)[failureClass] : undefined;
}

/** YYYY-MM-DD of an instant, UTC. */
export function dayOf(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** "1 Dec 2026". */
export function dateWords(t: number): string {
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function clock(t: number): string {
  return new Date(t).toISOString().slice(11, 16);
}

/** "29 min", "2 h 5 min", "3 d 4 h": at least a minute, never "0 min" for a real stretch. */
export function durationWords(ms: number): string {
  const total = Math.max(1, Math.round(ms / MINUTE_MS));
  const d = Math.floor(total / 1440);
  const h = Math.floor((total % 1440) / 60);
  const m = total % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

/** "14:02–14:31 UTC" today, "28 Nov 2026 14:02–14:31 UTC" another day, both dates across midnight. */
export function spanWords(start: number, end: number, now: number): string {
  const sameDay = dayOf(start) === dayOf(end);
  const prefix = dayOf(start) === dayOf(now) && sameDay ? '' : `${dateWords(start)} `;
  if (sameDay) return `${prefix}${clock(start)}–${clock(end)} UTC`;
  return `${dateWords(start)} ${clock(start)} – ${dateWords(end)} ${clock(end)} UTC`;
}

function sinceWords(start: number, now: number): string {
  return dayOf(start) === dayOf(now) ? `${clock(start)} UTC` : `${dateWords(start)} ${clock(start)} UTC`;
}

/** " from 2 of 3 regions": nothing for one region, nor for a count the history does not know (null). */
function regionWords(count: number | null, regions: number): string {
  if (regions <= 1 || count === null || count <= 0) return '';
  if (count >= regions) return ` from all ${regions} regions`;
  return ` from ${count} of ${regions} regions`;
}

export interface IncidentFacts {
  readonly target: string;
  readonly kind: 'outage' | 'degraded';
  readonly start: number;
  readonly end: number | null;
  /** The most regions failing at once: what "failed for agents from K of R regions" counts. */
  readonly failedRegions: number | null;
  /** The most regions not healthy at once: what "degraded for agents from K of R regions" counts. */
  readonly unhealthyRegions: number | null;
  readonly regions: number;
  readonly failureClass?: string;
  /** Of it, the time in the target's maintenance windows (left out of uptime, as the report leaves it out). */
  readonly maintenanceMs?: number;
}

/** " It was inside a maintenance window, so it does not count against uptime." (the report's "inside maintenance"). */
function maintenanceNote(i: IncidentFacts, end: number): string {
  const inside = i.maintenanceMs ?? 0;
  if (inside <= 0) return '';
  const open = i.end === null;
  if (inside >= end - i.start)
    return open
      ? ' It is inside a maintenance window, so it does not count against uptime.'
      : ' It was inside a maintenance window, so it does not count against uptime.';
  const counted = durationWords(end - i.start - inside);
  return open
    ? ` Part of it is inside a maintenance window: ${counted} so far counts against uptime.`
    : ` Part of it was inside a maintenance window: ${counted} of it counts against uptime.`;
}

export function incidentWords(i: IncidentFacts, now: number): string {
  // Each kind counts the regions its verb names: failed ones for an outage, not healthy ones for a degradation.
  const where = regionWords(i.kind === 'outage' ? i.failedRegions : i.unhealthyRegions, i.regions);
  const cause = causeWords(i.failureClass);
  const tail = cause ? `: ${cause}.` : '.';
  if (i.end === null) {
    const verb = i.kind === 'outage' ? 'is failing for agents' : 'is degraded for agents';
    return `${i.target} ${verb}${where} since ${sinceWords(i.start, now)} (${durationWords(now - i.start)} so far)${tail}${maintenanceNote(i, now)}`;
  }
  const verb = i.kind === 'outage' ? 'failed for agents' : 'was degraded for agents';
  return `${i.target} ${verb}${where}, ${spanWords(i.start, i.end, now)} (${durationWords(i.end - i.start)})${tail}${maintenanceNote(i, i.end)}`;
}

/** "Maintenance of Search tools and Payments, 2 Dec 2026 02:00–04:00 UTC (2 h)." */
export function maintenanceWords(targets: readonly string[], start: number, end: number, now: number): string {
  const who = targets.length <= 1 ? (targets[0] ?? '') : `${targets.slice(0, -1).join(', ')} and ${targets[targets.length - 1]}`;
  const when = start <= now && now < end ? `until ${sinceWords(end, now)}, started ${sinceWords(start, now)}` : spanWords(start, end, now);
  return `Maintenance of ${who}, ${when} (${durationWords(end - start)}).`;
}
