/**
 * Maintenance windows: when a target's paging (critical) and ticket (warning) alarms are muted, as
 * CloudWatch alarm mute rules. Validated here, at `cdk synth`, so a bad cron never reaches CloudFormation:
 *
 *   maintenance: [{ name: 'nightly-deploy', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', targets: ['rates-prod'] }]
 *
 * The schedule is a mute rule's: `cron(minute hour day-of-month month day-of-week)` (five fields, in
 * `timezone`, UTC by default) or `at(yyyy-mm-ddThh:mm)` once. The canary owner's alarms (dead-man,
 * Lambda errors, schedule DLQ) are never muted: a window must not hide a dead canary.
 *
 * "In the past" is a deploy-time question: `cdk synth` refuses an `at(…)` window that has already ended
 * (infra/plan/checks.ts, with `windowEnd` below), since a mute rule for the past mutes nothing. The schema itself does
 * not, because the same file drives `mcp-canary check --config`, which mutes no alarm and ignores the
 * windows: a local check must not start failing on the day an old window ends.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';
import { cronFields, expand, fieldProblem, MUTE_RULE_FIELDS, neverFires } from '../aws/cron.ts';
import { didYouMean } from '../words/did-you-mean.ts';
import { refineBy } from '../words/words.ts';

/** A mute rule lasts 1 minute to 15 days (CloudWatch's limits). */
export const MIN_WINDOW_MINUTES = 1;
export const MAX_WINDOW_MINUTES = 15 * 24 * 60;

/** Why a schedule is not a mute-rule schedule, or null when it is one. */
export function scheduleProblem(s: string): string | null {
  const at = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})\)$/.exec(s);
  if (at) {
    const [, y, mo, d, h, mi] = at.map(Number) as number[];
    const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!));
    const real = date.getUTCMonth() === mo! - 1 && date.getUTCDate() === d! && h! < 24 && mi! < 60;
    return real ? null : `${s} is not a real date and time: write at(yyyy-mm-ddThh:mm), e.g. at(2026-12-24T22:00)`;
  }
  const fields = cronFields(s);
  if (!fields)
    return `must be cron(minute hour day-of-month month day-of-week) or at(yyyy-mm-ddThh:mm), got ${JSON.stringify(s)}, e.g. "cron(0 2 * * SUN)"`;
  if (fields.length !== 5)
    return `${s} has ${fields.length} field(s); a mute-rule cron has 5 (minute hour day-of-month month day-of-week), e.g. "cron(0 2 * * SUN)"`;
  for (const [i, f] of MUTE_RULE_FIELDS.entries()) {
    const problem = fieldProblem(f, fields[i]!);
    if (problem) return `${s}: ${problem}`;
  }
  const restricts = (t: string) => t !== '*' && t !== '?';
  if (restricts(fields[2]!) && restricts(fields[4]!))
    return `${s} restricts both day-of-month and day-of-week: use one and put * in the other`;
  if (neverFires(expand(MUTE_RULE_FIELDS[2]!, fields[2]!), expand(MUTE_RULE_FIELDS[3]!, fields[3]!)))
    return `${s} never starts: no month it names has the day-of-month it names (e.g. 30 FEB). Pick a day that exists`;
  return null;
}

/** "2 hours", "90 minutes", "1 day", or ISO 8601 "PT2H", "P1DT12H" → minutes; null when not one. */
export function durationMinutes(s: string): number | null {
  const words = /^(\d+)\s*(minute|minutes|min|m|hour|hours|h|day|days|d)$/i.exec(s.trim());
  if (words) {
    const n = Number(words[1]);
    const unit = words[2]!.toLowerCase()[0];
    return unit === 'm' ? n : unit === 'h' ? n * 60 : n * 1440;
  }
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(s.trim());
  if (iso && s.trim() !== 'P' && !s.trim().endsWith('T'))
    return Number(iso[1] ?? 0) * 1440 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
  return null;
}

/**
 * Why `tz` is not a time zone a mute rule can take, or null. CloudWatch's `Timezone` is an IANA zone name,
 * as the database writes it: Intl (which also reads "europe/berlin" and "+05:00") says whether the zone
 * exists and how its name is written, and a name that is only a spelling of that one, or an offset, is
 * refused with the name to write.
 */
export function timeZoneProblem(tz: string): string | null {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return `${JSON.stringify(tz)} is not an IANA time zone${didYouMean(tz, [...Intl.supportedValuesOf('timeZone'), 'UTC'])}, e.g. "Europe/Berlin"`;
  }
  if (/^[+-]/.test(tz))
    return `${JSON.stringify(tz)} is a UTC offset, not an IANA time zone: give the zone of the place, e.g. "Asia/Karachi", so its daylight-saving changes are followed`;
  // Every IANA name has a capital letter ("UTC", "Europe/Berlin"): one written all in lower case is a spelling.
  if (tz !== resolved && (tz.toLowerCase() === resolved.toLowerCase() || tz === tz.toLowerCase()))
    return `${JSON.stringify(tz)} is not written as the IANA time zone database writes it: write ${JSON.stringify(resolved)}`;
  return null;
}

export const MaintenanceWindow = z
  .object({
    /** Names the mute rule: letters, digits, "-" and "_". */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1–64 letters, digits, "-" or "_", starting with a letter or digit')
      .meta({ description: 'Names the rule `<fleet>-maintenance-<name>`: 1–64 letters, digits, `-` or `_`; unique' }),
    schedule: z
      .string()
      .superRefine((s, ctx) => {
        const problem = scheduleProblem(s.trim());
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .meta({
        description:
          '`cron(minute hour day-of-month month day-of-week)` (`*`, numbers, `a-b`, `*/n`, lists, `JAN`–`DEC`, `SUN`–`SAT`, `?`; restrict day-of-month or day-of-week), refused when it can never start (30 FEB); or `at(yyyy-mm-ddThh:mm)` once, refused at `cdk synth` once it has ended',
      }),
    duration: z
      .string()
      .superRefine((s, ctx) => {
        const m = durationMinutes(s);
        if (m === null)
          ctx.addIssue({
            code: 'custom',
            message: `${JSON.stringify(s)} is not a duration: write "90 minutes", "2 hours", "1 day" or ISO 8601 "PT2H"`,
          });
        else if (m < MIN_WINDOW_MINUTES || m > MAX_WINDOW_MINUTES)
          ctx.addIssue({
            code: 'custom',
            message: `${JSON.stringify(s)} is outside 1 minute to 15 days, CloudWatch's limits for a mute rule`,
          });
      })
      .meta({
        description: 'How long each window lasts: `"90 minutes"`, `"2 hours"`, `"1 day"` or ISO 8601 `"PT2H"`; 1 minute to 15 days',
      }),
    /** IANA time zone of the schedule. @default - UTC */
    timezone: z.string().superRefine(refineBy(timeZoneProblem)).optional().meta({
      description: 'IANA time zone of the schedule, written as IANA writes it (`Europe/Berlin`, not `europe/berlin` or `+01:00`)',
      defaultText: 'UTC',
    }),
    /** The targets whose paging and ticket alarms are muted. @default - every target of the fleet */
    targets: z.array(z.string()).min(1, 'is empty: name targets, or leave it out to mute every target').optional().meta({
      description: 'The targets whose paging and ticket alarms are muted, each listed once',
      defaultText: 'every target of the fleet',
    }),
  })
  .strict();
export type MaintenanceWindow = z.output<typeof MaintenanceWindow>;

/** Window names unique, target names known: the cross-field rules, for the fleet's superRefine. */
export function checkMaintenance(
  f: { maintenance: readonly MaintenanceWindow[]; targets: ReadonlyArray<{ name: string }> },
  ctx: z.RefinementCtx,
): void {
  const known = new Set(f.targets.map((t) => t.name));
  const seen = new Set<string>();
  f.maintenance.forEach((w, i) => {
    if (seen.has(w.name))
      ctx.addIssue({
        code: 'custom',
        path: ['maintenance', i, 'name'],
        message: `"${w.name}" is used by another window: window names must be unique`,
      });
    seen.add(w.name);
    // A target listed twice would give its alarms twice to one mute rule, which CloudFormation refuses.
    const listed = new Map<string, number>();
    (w.targets ?? []).forEach((t, j) => {
      const first = listed.get(t);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['maintenance', i, 'targets', j],
          message: `"${t}" is already listed at maintenance[${i}].targets[${first}]: list each target once`,
        });
      listed.set(t, first ?? j);
      if (!known.has(t)) {
        ctx.addIssue({
          code: 'custom',
          path: ['maintenance', i, 'targets', j],
          message: `"${t}" is not a target of this fleet. Targets: ${[...known].join(', ')}`,
        });
      }
    });
  });
}

/**
 * When a one-time window ends, as an instant: `at(2026-12-24T22:00)` in its time zone plus its duration.
 * Null for a recurring (cron) window, which never ends, or a schedule that is not valid.
 */
export function windowEnd(w: Pick<MaintenanceWindow, 'schedule' | 'duration' | 'timezone'>): Date | null {
  const at = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})\)$/.exec(w.schedule.trim());
  const minutes = durationMinutes(w.duration);
  if (!at || minutes === null) return null;
  const [y, mo, d, h, mi] = at.slice(1).map(Number) as [number, number, number, number, number];
  return new Date(zonedToUtc(Date.UTC(y, mo - 1, d, h, mi), w.timezone ?? 'UTC') + minutes * 60_000);
}

/**
 * The UTC instant of a wall-clock time in an IANA zone (Intl knows the zones; no library needed for the
 * offset): two passes of "wall clock minus the zone's offset there", which settles across a DST change.
 */
function zonedToUtc(wall: number, zone: string): number {
  const first = wall - zoneOffsetMs(wall, zone);
  return wall - zoneOffsetMs(first, zone);
}

/**
 * One formatter per zone: making an Intl.DateTimeFormat costs about 0.2 ms, and a 90-day report or status
 * page asks for the offset once an hour of every window (2,160 times each), which made it seconds per window.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f)
    formatters.set(
      zone,
      (f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      })),
    );
  return f;
}

/** Wall clock minus UTC at instant t in an IANA zone, to the minute (functions/io/history expands windows with it too). */
export function zoneOffsetMs(t: number, zone: string): number {
  const parts = formatterFor(zone).formatToParts(new Date(t));
  const p = Object.fromEntries(parts.map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!) - Math.floor(t / 60_000) * 60_000;
}
