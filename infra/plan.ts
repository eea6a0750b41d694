/**
 * The fleet config → what to deploy: per target its regions, quorum and period; per probe region the
 * schedules (targets sharing a rate, packed into payloads well under the Scheduler limit); per target
 * the alarm stack it lives in. Pure: no CDK here, so every rule is testable on its own and the stacks
 * only render this plan.
 */
import { oauthStoreRefs } from '../functions/auth/secrets.ts';
import { lambdaTimeoutSeconds } from '../functions/run/budget.ts';
import type { Fleet, FleetInput } from '../functions/config/fleet.ts';
import type { HeaderSecretRef } from '../functions/config/target.ts';
import { checkFleet, fleetError } from './checks.ts';
import { periodSeconds, rateSlug } from './rates.ts';
import { resolveTarget } from './resolve.ts';

/**
 * EventBridge Scheduler passes the target input as the Lambda payload. The quota page states no size we
 * could verify offline, so we assume 8 KB and pack each payload to at most 3/4 of it.
 */
export const ASSUMED_MAX_SCHEDULE_PAYLOAD_BYTES = 8 * 1024;
export const SCHEDULE_PAYLOAD_BUDGET_BYTES = (ASSUMED_MAX_SCHEDULE_PAYLOAD_BYTES * 3) / 4;
/** Targets one invocation judges concurrently: bounds sockets and memory of one run. */
export const MAX_TARGETS_PER_RUN = 25;
/** Alarm stacks a target is hashed into. Fixed, so a target's alarms never move between stacks. */
export const DEFAULT_ALARM_STACKS = 16;
/** Schedules per probe-region stack before an overflow stack takes the rest. */
export const DEFAULT_SCHEDULES_PER_STACK = 400;

/** Fields of a fleet target that only the CDK app reads; the run's `Target` schema rejects them. */
const FLEET_ONLY_FIELDS = ['schedule', 'probeRegions', 'runbookUrl'] as const;

export interface PlanOptions {
  /** @default - DEFAULT_ALARM_STACKS (16) */
  readonly alarmStacks?: number;
  /** @default - DEFAULT_SCHEDULES_PER_STACK (400) */
  readonly schedulesPerStack?: number;
}

export interface TargetPlan {
  /** Position in `targets`, for messages. */
  readonly index: number;
  readonly name: string;
  readonly url: string;
  readonly regions: readonly string[];
  /** Regions that must fail at once to page. */
  readonly quorum: number;
  /** `rate(...)`: the run period, and so the alarm period. */
  readonly schedule: string;
  readonly periodSeconds: number;
  readonly runbookUrl: string | undefined;
  readonly budgetMs: number;
  readonly headerSecrets: readonly HeaderSecretRef[];
  /** The target as the schedule payload carries it: the `Target` input, references instead of secrets. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Index of the home-region alarm stack that holds this target's alarms. */
  readonly alarmStack: number;
}

/** One EventBridge schedule: one invocation of the run function per period with these targets. */
export interface SchedulePlan {
  readonly schedule: string;
  /** `1m`, `5m`, `2h`: names the schedule and its function. */
  readonly rateSlug: string;
  readonly periodSeconds: number;
  /** Position among this region's schedules of the same rate (names and overflow stacks key on it). */
  readonly index: number;
  readonly targets: readonly string[];
  /** The exact `Input` of the schedule. */
  readonly input: string;
  readonly inputBytes: number;
}

/** One run function per (region, rate): its timeout fits the slowest budget and stays under the period. */
export interface RateGroupPlan {
  readonly schedule: string;
  readonly rateSlug: string;
  readonly periodSeconds: number;
  readonly maxBudgetMs: number;
  readonly timeoutSeconds: number;
  readonly schedules: readonly SchedulePlan[];
}

export interface RegionPlan {
  readonly region: string;
  readonly rates: readonly RateGroupPlan[];
  /** Every secret reference a target probed from here uses: the function may read these and no other. */
  readonly secrets: readonly HeaderSecretRef[];
  /** Schedules by stack: `[0]` lives in the region's main stack, the rest in overflow stacks. */
  readonly scheduleStacks: readonly (readonly SchedulePlan[])[];
}

export interface FleetPlan {
  readonly fleet: Fleet;
  readonly homeRegion: string;
  readonly namespace: string;
  readonly failureThreshold: number;
  /** Fleet-wide quorum when set; else each target's default. */
  readonly quorum: number | undefined;
  /** Every region any target is probed from, in config order. */
  readonly probeRegions: readonly string[];
  readonly targets: readonly TargetPlan[];
  readonly regions: readonly RegionPlan[];
  /** Targets by alarm stack index; only non-empty stacks are listed. */
  readonly alarmStacks: ReadonlyMap<number, readonly TargetPlan[]>;
}

export function planFleet(raw: FleetInput, options: PlanOptions = {}): FleetPlan {
  const fleet = checkFleet(raw);
  const alarmStackCount = options.alarmStacks ?? DEFAULT_ALARM_STACKS;
  const schedulesPerStack = options.schedulesPerStack ?? DEFAULT_SCHEDULES_PER_STACK;
  const rawTargets = (raw as { targets: unknown[] }).targets;

  const targets = fleet.targets.map((t, index): TargetPlan => {
    const r = resolveTarget(fleet, t);
    return {
      index,
      name: t.name,
      url: t.url,
      regions: r.regions,
      quorum: r.quorum,
      schedule: r.schedule,
      periodSeconds: r.periodSeconds,
      runbookUrl: r.runbookUrl,
      budgetMs: t.budgetMs,
      // The function may read exactly the secrets its targets reference: header values and OAuth material.
      headerSecrets: [...Object.values(t.headerSecrets), ...oauthStoreRefs(t.auth?.oauth)],
      payload: payloadOf(rawTargets[index]),
      alarmStack: fnv1a(t.name) % alarmStackCount,
    };
  });

  const probeRegions = unique(targets.flatMap((t) => t.regions));
  const regions = probeRegions.map((region) =>
    planRegion(
      region,
      targets.filter((t) => t.regions.includes(region)),
      schedulesPerStack,
    ),
  );
  const alarmStacks = new Map<number, TargetPlan[]>();
  for (const t of targets) alarmStacks.set(t.alarmStack, [...(alarmStacks.get(t.alarmStack) ?? []), t]);

  return {
    fleet,
    homeRegion: fleet.homeRegion,
    namespace: fleet.namespace,
    failureThreshold: fleet.failureThreshold,
    quorum: fleet.quorum,
    probeRegions,
    targets,
    regions,
    alarmStacks: new Map([...alarmStacks].sort(([a], [b]) => a - b)),
  };
}

function planRegion(region: string, targets: readonly TargetPlan[], schedulesPerStack: number): RegionPlan {
  const bySchedule = new Map<string, TargetPlan[]>();
  for (const t of targets) bySchedule.set(t.schedule, [...(bySchedule.get(t.schedule) ?? []), t]);
  const rates = [...bySchedule]
    .sort(([a], [b]) => periodSeconds(a) - periodSeconds(b))
    .map(([schedule, group]): RateGroupPlan => {
      const maxBudgetMs = Math.max(...group.map((t) => t.budgetMs));
      return {
        schedule,
        rateSlug: rateSlug(schedule),
        periodSeconds: periodSeconds(schedule),
        maxBudgetMs,
        timeoutSeconds: lambdaTimeoutSeconds(maxBudgetMs),
        schedules: pack(schedule, group),
      };
    });
  const all = rates.flatMap((r) => r.schedules);
  const scheduleStacks: SchedulePlan[][] = [];
  for (let i = 0; i < all.length; i += schedulesPerStack) scheduleStacks.push(all.slice(i, i + schedulesPerStack));
  return { region, rates, secrets: uniqueRefs(targets.flatMap((t) => t.headerSecrets)), scheduleStacks };
}

/**
 * Greedy packing in name order: a payload takes the next target while it stays within the byte budget
 * and the per-run target cap. Grouping wins on every cost line (one Scheduler invocation, one Lambda
 * request and one PutMetricData call per group instead of per target), so a schedule holds one target
 * only when its rate has one target.
 */
function pack(schedule: string, group: readonly TargetPlan[]): SchedulePlan[] {
  const chunks: TargetPlan[][] = [];
  let current: TargetPlan[] = [];
  for (const t of [...group].sort((a, b) => a.name.localeCompare(b.name))) {
    const one = inputOf([t], t.periodSeconds);
    if (byteLength(one) > SCHEDULE_PAYLOAD_BUDGET_BYTES) {
      throw fleetError(
        t.index,
        t.name,
        'payload',
        `is ${byteLength(one)} bytes as a schedule payload, more than the ${SCHEDULE_PAYLOAD_BUDGET_BYTES}-byte budget: shorten its tool arguments, expectations or recorded catalog`,
      );
    }
    if (
      current.length > 0 &&
      (current.length >= MAX_TARGETS_PER_RUN || byteLength(inputOf([...current, t], t.periodSeconds)) > SCHEDULE_PAYLOAD_BUDGET_BYTES)
    ) {
      chunks.push(current);
      current = [];
    }
    current.push(t);
  }
  if (current.length > 0) chunks.push(current);
  return chunks.map((chunk, index) => {
    const input = inputOf(chunk, periodSeconds(schedule));
    return {
      schedule,
      rateSlug: rateSlug(schedule),
      periodSeconds: periodSeconds(schedule),
      index,
      targets: chunk.map((t) => t.name),
      input,
      inputBytes: byteLength(input),
    };
  });
}

/** Scheduler replaces `<aws.scheduler.scheduled-time>` in the input: the run stamps its datapoints with it. */
export const SCHEDULED_TIME_PLACEHOLDER = '<aws.scheduler.scheduled-time>';

function inputOf(targets: readonly TargetPlan[], periodSeconds: number): string {
  return JSON.stringify({ targets: targets.map((t) => t.payload), scheduledTime: SCHEDULED_TIME_PLACEHOLDER, periodSeconds });
}

/** The user's target input minus the fleet-only fields; empty static headers dropped (any others are refused earlier). */
function payloadOf(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const key of FLEET_ONLY_FIELDS) delete out[key];
  if (out.headers !== undefined && Object.keys(out.headers as object).length === 0) delete out.headers;
  return out;
}

export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** FNV-1a, 32 bit: a stable, dependency-free hash for stack assignment. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(s, 'utf8')) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

function uniqueRefs(refs: readonly HeaderSecretRef[]): HeaderSecretRef[] {
  const seen = new Map<string, HeaderSecretRef>();
  for (const r of refs) {
    const key = 'secretsManager' in r ? `sm:${r.secretsManager}` : `ssm:${r.ssmParameter}`;
    if (!seen.has(key)) seen.set(key, 'secretsManager' in r ? { secretsManager: r.secretsManager } : { ssmParameter: r.ssmParameter });
  }
  return [...seen.values()];
}
