/**
 * How many alarms CloudFormation can have in flight at once in one template: it starts every resource whose
 * dependencies are done, so alarms that no DependsOn orders are created (updated, deleted) together. The
 * answer is the fewest chains of DependsOn that cover every alarm (a chain holds one alarm in flight at a
 * time; Dilworth: no more alarms can be in flight together than there are chains), found as alarms minus a
 * maximum matching of "A depends directly on B" pairs. Only direct alarm-to-alarm DependsOn counts, so the
 * figure is an upper bound, and exact for the chains the fleet's stacks build (infra/constructs/alarm-pacing.ts).
 */
import type { CfnResource } from './template.ts';

const ALARM_TYPES = new Set(['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm']);

/** Logical ids a resource names in DependsOn. */
function dependsOn(r: CfnResource): readonly string[] {
  const d = r.DependsOn;
  return typeof d === 'string' ? [d] : (d ?? []);
}

/** The most alarms of these resources CloudFormation can create at once (0 without alarms). */
export function alarmsInFlight(resources: Readonly<Record<string, CfnResource>>): number {
  const alarms = Object.keys(resources).filter((id) => ALARM_TYPES.has(resources[id]!.Type));
  const index = new Map(alarms.map((id, i) => [id, i]));
  const after = alarms.map((id) =>
    dependsOn(resources[id]!)
      .map((d) => index.get(d))
      .filter((i): i is number => i !== undefined),
  );
  // Kuhn's augmenting paths: `before[b]` is the alarm whose chain continues from b.
  const before = new Array<number>(alarms.length).fill(-1);
  const augment = (a: number, seen: Uint8Array): boolean => {
    for (const b of after[a]!) {
      if (seen[b]) continue;
      seen[b] = 1;
      if (before[b] === -1 || augment(before[b]!, seen)) {
        before[b] = a;
        return true;
      }
    }
    return false;
  };
  let matched = 0;
  for (let a = 0; a < alarms.length; a++) if (augment(a, new Uint8Array(alarms.length))) matched++;
  return alarms.length - matched;
}
