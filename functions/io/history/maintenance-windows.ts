/**
 * The instants a fleet's maintenance windows were open, from the same config the mute rules are made of
 * (functions/base/config/schema/maintenance.ts): `at(…)` once, or every start of a five-field mute-rule cron in its
 * time zone, each lasting its duration. Minute by minute over the window, because a mute rule starts on
 * a minute; the zone's offset is looked up once per hour (Intl knows the zones; no library needed).
 */
import { cronFields, expand, MUTE_RULE_FIELDS } from '../../base/config/aws/cron.ts';
import { durationMinutes, windowEnd, zoneOffsetMs, type MaintenanceWindow } from '../../base/config/schema/maintenance.ts';

export interface OpenWindow {
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
  /** The targets it covers; undefined: every target. */
  readonly targets?: readonly string[] | undefined;
}

const MINUTE = 60_000;

/** Every opening of `w` that overlaps [fromMs, toMs). */
export function openings(w: MaintenanceWindow, fromMs: number, toMs: number): OpenWindow[] {
  const minutes = durationMinutes(w.duration);
  if (minutes === null) return [];
  const length = minutes * MINUTE;
  const once = windowEnd(w);
  const base = { name: w.name, targets: w.targets };
  if (once) {
    const startMs = once.getTime() - length;
    return startMs < toMs && once.getTime() > fromMs ? [{ ...base, startMs, endMs: once.getTime() }] : [];
  }
  const fields = cronFields(w.schedule);
  if (!fields || fields.length !== 5) return [];
  const sets = fields.map((f, i) => expand(MUTE_RULE_FIELDS[i]!, f));
  const [minute, hour, dom, month, dow] = sets;
  const any = (i: number) => fields[i] === '*' || fields[i] === '?';
  const days = dow ? new Set([...dow].map((d) => d % 7)) : null;
  const out: OpenWindow[] = [];
  const zone = w.timezone ?? 'UTC';
  const offsets = new Map<number, number>();
  const offsetAt = (t: number) => {
    const hourKey = Math.floor(t / 3_600_000);
    let o = offsets.get(hourKey);
    if (o === undefined) offsets.set(hourKey, (o = zoneOffsetMs(t, zone)));
    return o;
  };
  // A wall-clock minute that happens twice (the hour repeated when DST ends) starts a window once: the first time.
  const started = new Set<number>();
  for (let t = Math.floor((fromMs - length) / MINUTE) * MINUTE; t < toMs; t += MINUTE) {
    const local = new Date(t + offsetAt(t));
    if (started.has(local.getTime())) continue;
    const dayOk = any(2) && any(4) ? true : !any(2) ? (dom?.has(local.getUTCDate()) ?? false) : (days?.has(local.getUTCDay()) ?? false);
    if (minute?.has(local.getUTCMinutes()) && hour?.has(local.getUTCHours()) && (month?.has(local.getUTCMonth() + 1) ?? false) && dayOk) {
      started.add(local.getTime());
      if (t + length > fromMs) out.push({ ...base, startMs: t, endMs: t + length });
    }
  }
  return out;
}

/** The windows open for one target in [fromMs, toMs), merged where they overlap. */
export function maintenanceFor(target: string, windows: readonly MaintenanceWindow[], fromMs: number, toMs: number): OpenWindow[] {
  return maintenanceLookup(windows)(target, fromMs, toMs);
}

/**
 * `maintenanceFor` for many targets: each window's openings are found once per range and shared by the
 * targets it covers (a minute-by-minute walk over 90 days per window and target added up to minutes for a
 * large fleet).
 */
export function maintenanceLookup(windows: readonly MaintenanceWindow[]): (target: string, fromMs: number, toMs: number) => OpenWindow[] {
  const found = new Map<string, OpenWindow[]>();
  return (target, fromMs, toMs) =>
    windows
      .flatMap((w, i) => {
        if (w.targets && !w.targets.includes(target)) return [];
        const key = `${i} ${fromMs} ${toMs}`;
        let open = found.get(key);
        if (!open) found.set(key, (open = openings(w, fromMs, toMs)));
        return open;
      })
      .sort((a, b) => a.startMs - b.startMs);
}
