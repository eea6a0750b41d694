/**
 * Pacing the deploy's alarms. CloudWatch allows 3 PutMetricAlarm calls a second per Region by default, and
 * CloudFormation creates a stack's resources as fast as their dependencies let it: a stack of 480 alarms
 * starts hundreds of calls at once, each throttled one retried only so long before the stack rolls back. So:
 * - inside a stack, the alarms (metric and composite) form at most `inFlight` DependsOn chains, so no more
 *   than `inFlight` are created, updated or deleted at a time (infra/quotas/in-flight.ts proves it on every
 *   synthesized template);
 * - across stacks, the home Region's alarm stacks deploy one after another (`chainStacks`), so
 *   `cdk deploy --concurrency N` cannot run several of them at once.
 * Adding a DependsOn replaces nothing: deployed alarms stay, and only the order of later changes is set.
 */
import { CfnResource, Stack, type IAspect } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

const ALARM_TYPES = new Set(['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm']);

/** The stack's alarms in an order every existing alarm-to-alarm DependsOn agrees with (construct order where free). */
function alarmsOf(stack: Stack): CfnResource[] {
  const alarms = stack.node
    .findAll()
    .filter((c): c is CfnResource => CfnResource.isCfnResource(c) && ALARM_TYPES.has(c.cfnResourceType) && Stack.of(c) === stack);
  const set = new Set(alarms);
  const placed = new Set<CfnResource>();
  const ordered: CfnResource[] = [];
  // Depth-first: an alarm comes after the alarms it already depends on (a burn composite after its windows).
  const place = (a: CfnResource, path: Set<CfnResource>) => {
    if (placed.has(a) || path.has(a)) return;
    path.add(a);
    for (const d of a.obtainDependencies()) if (d instanceof CfnResource && set.has(d)) place(d, path);
    placed.add(a);
    ordered.push(a);
  };
  for (const a of alarms) place(a, new Set());
  return ordered;
}

/** Chains the stack's alarms into at most `inFlight` DependsOn chains; returns how many alarms it holds. */
export function paceAlarms(stack: Stack, inFlight: number): number {
  const alarms = alarmsOf(stack);
  for (let i = inFlight; i < alarms.length; i++)
    alarms[i]!.addResourceDependency(alarms[i - inFlight]!, `at most ${inFlight} alarm(s) in flight (PutMetricAlarm's rate)`);
  return alarms.length;
}

/** How many alarms the stack holds now. */
export function countAlarms(stack: Stack): number {
  return alarmsOf(stack).length;
}

/**
 * Paces every stack it visits, at synth: after construction, so an alarm a user adds to a fleet stack is
 * chained too (the quota check would refuse the stack otherwise).
 */
export class PaceAlarms implements IAspect {
  constructor(private readonly inFlight: number) {}

  visit(node: IConstruct): void {
    if (Stack.isStack(node)) paceAlarms(node, this.inFlight);
  }
}

/** Each stack deploys after the one before it, whatever `cdk deploy --concurrency` says. */
export function chainStacks(stacks: readonly Stack[], reason: string): void {
  for (let i = 1; i < stacks.length; i++) stacks[i]!.addStackDependency(stacks[i - 1]!, reason);
}
