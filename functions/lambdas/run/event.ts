/**
 * The schedule's payload: `{ "targets": [ <Target>, ... ], "scheduledTime": "<aws.scheduler.scheduled-time>",
 * "periodSeconds": 60 }` (Scheduler fills in the scheduled time). It carries the target definitions
 * themselves (the `Target` schema is the single source of truth), with credentials only as
 * `headerSecrets` references. Each target is checked on its own, so one bad definition makes one
 * `inconclusive` verdict and the others still run.
 */
import { Target } from '../../base/config/schema/target.ts';
import { describeIssue } from '../../base/config/words/issues.ts';
import { configError } from '../../base/common/errors.ts';

export type PlannedTarget =
  | { readonly valid: true; readonly target: Target }
  | {
      readonly valid: false;
      /** The target's own name when it has a usable one, else `targets[i]`. */
      readonly name: string;
      /** Only a usable name is published: a `targets[i]` metric would be billed and watched by no alarm. */
      readonly publishable: boolean;
      readonly detail: string;
      /** Static header values in the bad definition, for redaction. */
      readonly headerValues: readonly string[];
    };

/** Throws `CanaryError` (CONFIG) only when the envelope itself is wrong: then no target can be named. */
export function readEvent(event: unknown): PlannedTarget[] {
  const targets = (event as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets) || targets.length === 0) {
    throw configError(
      `The schedule payload must be { "targets": [ <target>, ... ] } with at least one target, got ${describe(event)}. Fix the schedule's input (the CDK stack builds it from the fleet config).`,
    );
  }
  return targets.map((raw, i) => plan(raw, i));
}

function plan(raw: unknown, i: number): PlannedTarget {
  const parsed = Target.safeParse(raw);
  if (parsed.success) return { valid: true, target: parsed.data };
  const root = `targets[${i}]`;
  const name = Target.shape.name.safeParse((raw as { name?: unknown } | null)?.name);
  return {
    valid: false,
    name: name.success ? name.data : root,
    publishable: name.success,
    detail: `${root} is not a valid target: ${parsed.error.issues.map((issue) => describeIssue(issue, root)).join('; ')}. Fix it in the fleet config and redeploy.`,
    headerValues: stringValues((raw as { headers?: unknown } | null)?.headers),
  };
}

function stringValues(v: unknown): string[] {
  if (v === null || typeof v !== 'object') return [];
  return Object.values(v).filter((x): x is string => typeof x === 'string');
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return 'an array';
  if (typeof v !== 'object') return `a ${typeof v}`;
  const keys = Object.keys(v);
  return keys.length ? `an object with ${keys.map((k) => JSON.stringify(k)).join(', ')}` : 'an empty object';
}

/**
 * The start of the period this run was scheduled for: Scheduler's scheduled time floored to the period.
 * Scheduler starts a run anywhere within its minute and a run may take its whole budget, so the clock at
 * publish time can name the next period (a region counted twice there, and not at all in its own). A
 * payload without a usable scheduled time (a manual test invoke) falls back to the run's start.
 */
export function scheduledPeriodStart(event: unknown, startedAtMs: number): Date {
  const e = (event ?? {}) as { scheduledTime?: unknown };
  const periodMs = periodSecondsOf(event) * 1000;
  const scheduled = typeof e.scheduledTime === 'string' ? Date.parse(e.scheduledTime) : NaN;
  const at = Number.isFinite(scheduled) ? scheduled : startedAtMs;
  return new Date(Math.floor(at / periodMs) * periodMs);
}

/** The schedule's period in seconds (`periodSeconds`, at least 60); 60 when the payload has none. */
export function periodSecondsOf(event: unknown): number {
  const p = ((event ?? {}) as { periodSeconds?: unknown }).periodSeconds;
  return typeof p === 'number' && Number.isInteger(p) && p >= 60 ? p : 60;
}
