/**
 * Which stack holds each target's alarms, each schedule and each mute rule: split by size (stack-split.ts
 * says how, and why an item stays put), with sizes from template-size.ts. Keys are what a resource's
 * physical name derives from, so a key that never changes is a stack that never changes:
 * - alarms: the target name; 16 shards from the start (`fnv1a(name) mod 16`, the first release's
 *   layout, so its deployments keep their stacks), each splitting further when it fills;
 * - schedules: `<rate>/<index>` (the schedule name without the fleet); bucket 0 is the region's main
 *   stack, whose budget leaves room for its run functions, queues, topic and alarms;
 * - mute rules: the rule name; one `maintenance` stack until it fills.
 */
import { AlarmKind } from '../../functions/base/common/alarm-words.ts';
import type { Fleet } from '../../functions/base/config/schema/fleet.ts';
import { sloOf } from '../../functions/base/config/schema/slo.ts';
import { backendTargetName } from '../../functions/base/config/schema/backends.ts';
import { burnAlarmNames } from './burn.ts';
import type { MaintenanceWindow } from '../../functions/base/config/schema/maintenance.ts';
import { configError } from '../../functions/base/common/errors.ts';
import type { FleetNames } from './names.ts';
import { splitBySize, type StackBudget } from './stack-split.ts';
import {
  mainProbeStackFixed,
  muteRuleBytes,
  OVERFLOW_STACK_FIXED,
  scheduleBytes,
  STACK_BUDGET,
  targetAlarmsBytes,
  type AlarmFactsOfTarget,
} from './template-size.ts';

/** The first release hashed targets into 16 alarm stacks; placement starts there. */
export const ALARM_SHARD_DEPTH = 4;
/** Alarms per target: critical, warning, dead-man. */
const ALARMS_PER_TARGET = 3;

interface Placeable extends AlarmFactsOfTarget {
  readonly index: number;
}

export function placeAlarms<T extends Placeable>(
  targets: readonly T[],
  names: FleetNames,
  fleet: Pick<Fleet, 'namespace' | 'failureThreshold'>,
): { stacks: Map<number, T[]>; stackOf: Map<string, number> } {
  const stacks = splitBySize(targets, {
    key: (t) => t.name,
    size: (t) => ({ resources: ALARMS_PER_TARGET, bytes: targetAlarmsBytes(names, fleet.namespace, fleet.failureThreshold, t) }),
    minDepth: ALARM_SHARD_DEPTH,
    // Alarm stacks hold nothing else, and three per target is an exact count: fill to 480 of 500.
    budget: () => ({ resources: 480, bytes: STACK_BUDGET.bytes }),
    tooLarge: (t) =>
      configError(`mcp-canary fleet config: targets[${t.index}] (${JSON.stringify(t.name)}): its alarms do not fit one stack.`),
  });
  const stackOf = new Map<string, number>();
  for (const [id, ts] of stacks) for (const t of ts) stackOf.set(t.name, id);
  return { stacks, stackOf };
}

interface PlacedSchedule {
  readonly rateSlug: string;
  readonly index: number;
  readonly description: string;
  readonly input: string;
}

/** The stack id of every schedule of one region: 0 is the main probe stack. */
export function placeSchedules<T extends PlacedSchedule>(
  schedules: readonly T[],
  o: { names: FleetNames; rates: number; canaryOwner: number },
): (s: T) => number {
  const fixed = mainProbeStackFixed(o.rates, o.canaryOwner);
  const budget = (bucket: number): StackBudget =>
    bucket === 0
      ? { resources: STACK_BUDGET.resources - fixed.resources, bytes: STACK_BUDGET.bytes - fixed.bytes }
      : { resources: STACK_BUDGET.resources - OVERFLOW_STACK_FIXED.resources, bytes: STACK_BUDGET.bytes - OVERFLOW_STACK_FIXED.bytes };
  const stacks = splitBySize(schedules, {
    key: (s) => `${s.rateSlug}/${s.index}`,
    size: (s) => ({ resources: 1, bytes: scheduleBytes(o.names.schedule(s.rateSlug, s.index), s.description, s.input) }),
    minDepth: 0,
    budget,
    tooLarge: (s) => configError(`mcp-canary fleet config: the schedule ${o.names.schedule(s.rateSlug, s.index)} does not fit one stack.`),
  });
  const stackOf = new Map<T, number>();
  for (const [id, ss] of stacks) for (const s of ss) stackOf.set(s, id);
  return (s) => stackOf.get(s)!;
}

/** One alarm mute rule of a maintenance window (a window muting more than 100 alarms has several). */
export interface MuteRulePlan {
  readonly window: MaintenanceWindow;
  /** `<fleet>-maintenance-<window>` or `…-<window>-<n>`: the rule's name. */
  readonly ruleName: string;
  /** Construct id: the window name, plus `-<n>` when the window has several rules. */
  readonly id: string;
  readonly description: string;
  readonly alarmNames: readonly string[];
}

/**
 * A window over more than 100 alarms becomes rules `<window>-1`, `<window>-2`, …, which another window may
 * already be called: two rules of one name (and one construct id) cannot deploy. The names stay as they
 * are (renaming would replace the deployed rules), and the clash is a config error saying which to rename.
 */
function refuseSameRuleName(windows: readonly MaintenanceWindow[], rules: readonly MuteRulePlan[]): void {
  const byName = new Map<string, MuteRulePlan>();
  for (const r of rules) {
    const other = byName.get(r.ruleName);
    if (other) {
      const [split, whole] = other.id === other.window.name ? [r, other] : [other, r];
      const parts = rules.filter((x) => x.window === split.window).map((x) => x.id);
      throw configError(
        `mcp-canary fleet config: maintenance[${windows.indexOf(whole.window)}].name ${JSON.stringify(whole.window.name)} is also the name of a mute rule of maintenance[${windows.indexOf(split.window)}] (${JSON.stringify(split.window.name)}), which mutes more than ${MAX_ALARMS_PER_MUTE_RULE} alarms and so becomes ${parts.length} rules (${parts.join(', ')}). Rename one of the two windows.`,
      );
    }
    byName.set(r.ruleName, r);
  }
}

/** CloudWatch: a mute rule targets at most 100 alarms; a bigger window becomes several rules. */
export const MAX_ALARMS_PER_MUTE_RULE = 100;

/** The alarm kinds a window mutes: the target owner's. Never `dead-man`: that is the canary owner's. */
export const MUTED_KINDS: readonly AlarmKind[] = [AlarmKind.critical, AlarmKind.warning];

export function placeMuteRules(fleet: Pick<Fleet, 'maintenance' | 'targets' | 'slo'>, names: FleetNames): Map<number, MuteRulePlan[]> {
  // A target's SLO burn alarms (page and ticket) are the target owner's too: muted with the others.
  const burning = new Set(fleet.targets.filter((t) => sloOf(fleet, t)?.burnAlarms).map((t) => t.name));
  const rules = fleet.maintenance.flatMap((w) => {
    const targets = w.targets ?? fleet.targets.map((t) => t.name);
    // A gateway's maintenance is its backends' too: their alarms are muted with the gateway's.
    const backendsOf = (t: string) => (fleet.targets.find((x) => x.name === t)?.backends ?? []).map((b) => backendTargetName(t, b.name));
    const alarmNames = targets.flatMap((t) => [
      ...[t, ...backendsOf(t)].flatMap((a) => MUTED_KINDS.map((kind) => names.alarm(a, kind))),
      ...(burning.has(t) ? Object.values(burnAlarmNames(names, t)) : []),
    ]);
    const chunks: string[][] = [];
    for (let i = 0; i < alarmNames.length; i += MAX_ALARMS_PER_MUTE_RULE) chunks.push(alarmNames.slice(i, i + MAX_ALARMS_PER_MUTE_RULE));
    return chunks.map((part, i): MuteRulePlan => {
      const suffix = chunks.length > 1 ? `-${i + 1}` : '';
      return {
        window: w,
        ruleName: `${names.fleet}-maintenance-${w.name}${suffix}`,
        id: `${w.name}${suffix}`,
        description: `mcp-canary ${names.fleet}: maintenance window ${w.name} (${w.schedule}, ${w.duration}) mutes the paging and ticket alarms of ${targets.length} target(s); canary-owner alarms stay live`,
        alarmNames: part,
      };
    });
  });
  refuseSameRuleName(fleet.maintenance, rules);
  return splitBySize(rules, {
    key: (r) => r.ruleName,
    size: (r) => ({ resources: 1, bytes: muteRuleBytes(r.ruleName, r.description, r.alarmNames) }),
    minDepth: 0,
    budget: () => STACK_BUDGET,
    tooLarge: (r) => configError(`mcp-canary fleet config: the mute rule ${r.ruleName} does not fit one stack.`),
  });
}
