/**
 * The fleet config → what to deploy: per target its regions, quorum and period; per probe region the
 * schedules (targets sharing a rate, packed into payloads well under the Scheduler limit); per target
 * the alarm stack it lives in. Pure: no CDK here, so every rule is testable on its own and the stacks
 * only render this plan.
 */
import { oauthStoreRefs } from '../../functions/base/config/load/oauth-secrets.ts';
import { lambdaTimeoutSeconds } from '../../functions/base/config/schema/budget.ts';
import type { Fleet, FleetInput } from '../../functions/base/config/schema/fleet.ts';
import { backendTargetName } from '../../functions/base/config/schema/backends.ts';
import { fleetNameOf } from '../../functions/base/config/schema/fleet-name.ts';
import { statusPayload, type StatusPayload } from '../../functions/base/config/schema/status-page.ts';
import type { HeaderSecretRef } from '../../functions/base/config/schema/target.ts';
import { targetRule } from '../../functions/base/config/schema/target-rule.ts';
import { configError } from '../../functions/base/common/errors.ts';
import { checkFleet, fleetError } from './checks.ts';
import { FleetNames } from './names.ts';
import { networkPlan, type NetworkPlan } from './network.ts';
import { placeAlarms, placeMuteRules, placeSchedules, type MuteRulePlan } from './placement.ts';
import { rateSlug } from './rates.ts';
import { regionSecretScopes, secretRefsOf, type SecretRefAt, type SecretScope } from './secret-scope.ts';

/**
 * EventBridge Scheduler passes the target input as the Lambda payload. Scheduler documents no maximum for
 * `Target.Input` (its API model says only "minimum 1"); the binding limit is Lambda's asynchronous payload
 * (256 KB, checked by infra/quotas). We keep the 8 KB of EventBridge rules' target input as our own, much
 * smaller, ceiling and pack each payload to at most 3/4 of it: 25 targets fit well within it.
 */
export const ASSUMED_MAX_SCHEDULE_PAYLOAD_BYTES = 8 * 1024;
export const SCHEDULE_PAYLOAD_BUDGET_BYTES = (ASSUMED_MAX_SCHEDULE_PAYLOAD_BYTES * 3) / 4;
/** Targets one invocation judges concurrently: bounds sockets and memory of one run. */
export const MAX_TARGETS_PER_RUN = 25;
/**
 * Distinct schedules (rates) probed from one region: each has a run function and an errors alarm in the
 * region's main stack, which must stay inside CloudFormation's per-stack limits beside its schedules.
 */
export const MAX_RATES_PER_REGION = 20;

/** Fields of a fleet target that only the CDK app reads; the run's `Target` schema rejects them. */
const FLEET_ONLY_FIELDS = ['schedule', 'probeRegions', 'runbookUrl', 'status', 'slo'] as const;

export interface PlanOptions {
  /** The fleet's names (alarm, schedule and rule names count towards stack sizes). @default - the config's `name`, else `McpCanary` */
  readonly names?: FleetNames;
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
  /** The same references with the config field that holds each, for synth messages. */
  readonly secretRefs: readonly SecretRefAt[];
  /** The target as the schedule payload carries it: the `Target` input, references instead of secrets. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Id of the home-region alarm stack that holds this target's alarms (placement.ts). */
  readonly alarmStack: number;
  /** A gateway's backend, alarmed as a target of its own (`name` is `<gateway>/<backend>`): the gateway's name. */
  readonly gateway?: string;
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
  readonly description: string;
  /** Id of the region's stack that holds it: 0 is the main probe stack (placement.ts). */
  readonly stack: number;
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
  /** Where the secrets of the targets probed from here live: the run role's grants (secret-scope.ts). */
  readonly secretScopes: readonly SecretScope[];
  /** Schedules by stack, ids ascending: `[0]` is the region's main stack (id 0, maybe empty), the rest overflow stacks. */
  readonly scheduleStacks: readonly (readonly SchedulePlan[])[];
  /** The fleet's proxy and this region's VPC for it (network.ts). */
  readonly network: NetworkPlan;
}

export interface FleetPlan {
  readonly fleet: Fleet;
  readonly homeRegion: string;
  readonly namespace: string;
  readonly failureThreshold: number;
  /** k by R: each target's quorum by its number of probe regions (the brief reads an alarm's back by its regions). */
  readonly quorums: ReadonlyMap<number, number>;
  /** Every region any target is probed from, in config order. */
  readonly probeRegions: readonly string[];
  readonly targets: readonly TargetPlan[];
  /**
   * Every name with alarms of its own: each target, and after a gateway each of its backends
   * (`<gateway>/<backend>`, its run's verdicts). Schedules carry `targets`; alarms, pages and quotas count these.
   */
  readonly alarmed: readonly TargetPlan[];
  readonly regions: readonly RegionPlan[];
  /** Targets by alarm stack id; only non-empty stacks are listed. */
  readonly alarmStacks: ReadonlyMap<number, readonly TargetPlan[]>;
  /** The maintenance windows' mute rules by stack id; empty without windows. */
  readonly muteRuleStacks: ReadonlyMap<number, readonly MuteRulePlan[]>;
  /** The status page function's input; undefined without `statusPage` (no status stack). */
  readonly status: StatusPayload | undefined;
}

export function planFleet(raw: FleetInput, options: PlanOptions = {}): FleetPlan {
  const fleet = checkFleet(raw);
  // The config's own name when it has one: a plan (the status page's payload among it) names the fleet the config names.
  const names = options.names ?? new FleetNames(fleetNameOf(fleet).name);
  const rawTargets = (raw as { targets: unknown[] }).targets;

  const unplaced = fleet.targets.map((t, index): Omit<TargetPlan, 'alarmStack'> => {
    const r = targetRule(fleet, t);
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
      // The function may read exactly the secrets its targets reference: header and query values, OAuth material.
      headerSecrets: [...Object.values(t.headerSecrets), ...Object.values(t.querySecrets), ...oauthStoreRefs(t.auth?.oauth)],
      secretRefs: secretRefsOf(t),
      payload: payloadOf(rawTargets[index]),
    };
  });
  // A gateway's backends are judged in its run (one schedule entry) but alarmed one by one, as targets are.
  const withBackends = unplaced.flatMap((t) => [
    t,
    ...(fleet.targets[t.index]!.backends ?? []).map((b) => ({ ...t, name: backendTargetName(t.name, b.name), gateway: t.name })),
  ]);
  const placed = placeAlarms(withBackends, names, fleet);
  const stacked = <T extends { name: string }>(t: T) => ({ ...t, alarmStack: placed.stackOf.get(t.name)! });
  const targets = unplaced.map((t): TargetPlan => stacked(t));
  const alarmed = withBackends.map((t): TargetPlan => stacked(t));
  const alarmStacks = new Map([...placed.stacks].map(([id, ts]) => [id, ts.map((t): TargetPlan => ({ ...t, alarmStack: id }))]));

  const probeRegions = unique(targets.flatMap((t) => t.regions));
  const regions = probeRegions.map((region) =>
    planRegion(
      region,
      targets.filter((t) => t.regions.includes(region)),
      names,
      fleet,
    ),
  );

  return {
    fleet,
    homeRegion: fleet.homeRegion,
    namespace: fleet.namespace,
    failureThreshold: fleet.failureThreshold,
    quorums: quorumsByRegionCount(targets),
    probeRegions,
    targets,
    alarmed,
    regions,
    alarmStacks,
    muteRuleStacks: placeMuteRules(fleet, names),
    status: fleet.statusPage ? planStatus(fleet, names, alarmed) : undefined,
  };
}

/**
 * The rule's quorum depends on the fleet and the number of regions alone, so one entry per count tells
 * the brief every alarm's k; a rule that gave two targets with as many regions two quorums would need
 * another channel, and says so here rather than brief one of them wrong.
 */
function quorumsByRegionCount(targets: readonly TargetPlan[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of targets) {
    const k = out.get(t.regions.length);
    if (k !== undefined && k !== t.quorum)
      throw new Error(
        `targets with ${t.regions.length} probe regions have quorums ${k} and ${t.quorum} (${t.name}): the brief reads the quorum by region count (MCP_CANARY_QUORUM), which cannot tell them apart`,
      );
    out.set(t.regions.length, t.quorum);
  }
  return out;
}

/**
 * The status page's schedule input carries every shown target's display name: Lambda's asynchronous
 * payload (256 KB, which infra/quotas checks again on the template) bounds it. Said here in the status
 * page's words, with a margin, before any construct.
 */
export const MAX_STATUS_PAYLOAD_BYTES = 240 * 1024;

/** Every alarmed target — a gateway's backends after it, shown and hidden with it — on the page. */
function planStatus(fleet: Fleet, names: FleetNames, alarmed: readonly TargetPlan[]): StatusPayload {
  const payload = statusPayload(
    fleet,
    names.fleet,
    alarmed.map((t) => ({ ...t, status: fleet.targets[t.index]!.status })),
  );
  const bytes = byteLength(JSON.stringify(payload));
  if (bytes > MAX_STATUS_PAYLOAD_BYTES)
    throw configError(
      `mcp-canary fleet config: statusPage shows ${payload.targets.length} targets, ${bytes} bytes as its schedule input, more than ${MAX_STATUS_PAYLOAD_BYTES} (Lambda's asynchronous payload is 256 KB): hide some (targets[].status.hidden) or shorten their status.name.`,
    );
  return payload;
}

function planRegion(region: string, targets: readonly TargetPlan[], names: FleetNames, fleet: Fleet): RegionPlan {
  // By period, not by spelling: rate(60 minutes) and rate(1 hour) share one function (`run-1h`), written
  // as the first of its targets writes it.
  const byPeriod = new Map<number, TargetPlan[]>();
  for (const t of targets) byPeriod.set(t.periodSeconds, [...(byPeriod.get(t.periodSeconds) ?? []), t]);
  const scheduleOf = (group: readonly TargetPlan[]) => group[0]!.schedule;
  if (byPeriod.size > MAX_RATES_PER_REGION) {
    const t = [...byPeriod.values()][MAX_RATES_PER_REGION]![0]!;
    throw fleetError(
      t.index,
      t.name,
      targetRule(fleet, fleet.targets[t.index]!).scheduleField,
      `${t.schedule} would be distinct schedule number ${MAX_RATES_PER_REGION + 1} probed from ${region}; a region runs at most ${MAX_RATES_PER_REGION} (one run function and alarm each, in one stack). Give this target a schedule another target already uses, e.g. ${[...byPeriod.values()].slice(0, 3).map(scheduleOf).join(', ')}`,
    );
  }
  const rates = [...byPeriod]
    .sort(([a], [b]) => a - b)
    .map(([periodSeconds, group]) => {
      const maxBudgetMs = Math.max(...group.map((t) => t.budgetMs));
      return {
        schedule: scheduleOf(group),
        rateSlug: rateSlug(periodSeconds),
        periodSeconds,
        maxBudgetMs,
        timeoutSeconds: lambdaTimeoutSeconds(maxBudgetMs),
        schedules: pack(region, scheduleOf(group), periodSeconds, group),
      };
    });
  const stackOf = placeSchedules(
    rates.flatMap((r) => r.schedules),
    { names, rates: rates.length, canaryOwner: fleet.notify.canaryOwner.length },
  );
  const placedRates: RateGroupPlan[] = rates.map((r) => ({ ...r, schedules: r.schedules.map((s) => ({ ...s, stack: stackOf(s) })) }));
  const byStack = new Map<number, SchedulePlan[]>([[0, []]]);
  for (const s of placedRates.flatMap((r) => r.schedules)) byStack.set(s.stack, [...(byStack.get(s.stack) ?? []), s]);
  const network = networkPlan(fleet, region);
  const scopes = regionSecretScopes(region, targets);
  const key = (s: SecretScope) => [s.service, s.partition, s.region, s.account].join(':');
  const proxyScope = network.proxyScope;
  return {
    region,
    rates: placedRates,
    network,
    secretScopes: proxyScope && !scopes.some((s) => key(s) === key(proxyScope)) ? [...scopes, proxyScope] : scopes,
    scheduleStacks: [...byStack].sort(([a], [b]) => a - b).map(([, schedules]) => schedules),
  };
}

/**
 * Greedy packing in name order: a payload takes the next target while it stays within the byte budget
 * and the per-run target cap. Grouping wins on every cost line (one Scheduler invocation, one Lambda
 * request and one PutMetricData call per group instead of per target), so a schedule holds one target
 * only when its rate has one target.
 */
function pack(region: string, schedule: string, periodSeconds: number, group: readonly TargetPlan[]): Array<Omit<SchedulePlan, 'stack'>> {
  const chunks: TargetPlan[][] = [];
  let current: TargetPlan[] = [];
  // The input's bytes, counted as JSON.stringify lays them out (the wrapper, each payload, a comma between),
  // so packing is linear: re-serializing the chunk for every candidate was most of the plan's time at 5,000 targets.
  const wrapper = byteLength(inputOf([], periodSeconds));
  let currentBytes = wrapper;
  for (const t of [...group].sort((a, b) => a.name.localeCompare(b.name))) {
    const bytes = byteLength(JSON.stringify(t.payload));
    if (wrapper + bytes > SCHEDULE_PAYLOAD_BUDGET_BYTES) {
      throw fleetError(
        t.index,
        t.name,
        'payload',
        `is ${wrapper + bytes} bytes as a schedule payload, more than the ${SCHEDULE_PAYLOAD_BUDGET_BYTES}-byte budget: shorten its tool arguments, expectations or recorded catalog`,
      );
    }
    if (current.length > 0 && (current.length >= MAX_TARGETS_PER_RUN || currentBytes + 1 + bytes > SCHEDULE_PAYLOAD_BUDGET_BYTES)) {
      chunks.push(current);
      current = [];
      currentBytes = wrapper;
    }
    currentBytes += (current.length > 0 ? 1 : 0) + bytes;
    current.push(t);
  }
  if (current.length > 0) chunks.push(current);
  return chunks.map((chunk, index) => {
    const input = inputOf(chunk, periodSeconds);
    const names = chunk.map((t) => t.name);
    return {
      schedule,
      rateSlug: rateSlug(periodSeconds),
      periodSeconds,
      index,
      targets: names,
      input,
      inputBytes: byteLength(input),
      // Scheduler allows 512 characters: the names beyond that are in the input.
      description: `mcp-canary: runs ${names.length} target(s) ${schedule} from ${region}: ${names.join(', ')}`.slice(0, 512),
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

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
