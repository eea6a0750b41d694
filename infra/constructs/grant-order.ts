/**
 * The first-deploy race. Some resources are checked against a role's permissions when they are created:
 * Lambda stores an EventInvokeConfig only if the function's role may send to its destinations ("The provided
 * execution role does not have permissions to call SendMessage on SQS"), an event source mapping only if the
 * role may read its source, a function's dead-letter config only if the role may send there. CDK grants those
 * permissions in a separate `AWS::IAM::Policy` (the role's DefaultPolicy), and nothing orders the checked
 * resource after it: CloudFormation may create both at once, and the check runs on a role without the grant.
 *
 * This aspect gives every such resource a DependsOn on each policy of its role that names what it checks, so
 * the grant exists (and has had the policy's own creation to settle) before Lambda looks.
 */
import { CfnResource, Stack, type IAspect } from 'aws-cdk-lib';
import { CfnPolicy } from 'aws-cdk-lib/aws-iam';
import { CfnEventInvokeConfig, CfnEventSourceMapping, CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/** What Lambda checks a resource against: the identity it runs as, and what it names. */
interface Checked {
  /** A function (its role is checked) or a role. */
  readonly runsAs: unknown;
  /** Destinations, sources, dead-letter targets: what the role must be allowed to use. */
  readonly names: unknown;
}

function checkedBy(r: CfnResource): Checked | undefined {
  if (r instanceof CfnEventInvokeConfig) return { runsAs: r.functionName, names: r.destinationConfig };
  if (r instanceof CfnEventSourceMapping) return { runsAs: r.functionName, names: [r.eventSourceArn, r.destinationConfig] };
  if (r instanceof CfnFunction) return { runsAs: r.role, names: [r.deadLetterConfig, r.kmsKeyArn] };
  return undefined;
}

/** Logical ids a resolved value refers to (`Ref`, `Fn::GetAtt`, `${Id.Attr}` in `Fn::Sub`). */
function referenced(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => referenced(x, out));
  else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.Ref === 'string') out.add(o.Ref);
    const att = o['Fn::GetAtt'];
    if (Array.isArray(att) && typeof att[0] === 'string') out.add(att[0]);
    const sub = o['Fn::Sub'];
    const text = Array.isArray(sub) ? sub[0] : sub;
    if (typeof text === 'string') for (const m of text.matchAll(/\$\{([^.}!]+)[.}]/g)) out.add(m[1]!);
    Object.values(o).forEach((x) => referenced(x, out));
  }
  return out;
}

export class GrantsBeforeChecks implements IAspect {
  visit(node: IConstruct): void {
    if (!Stack.isStack(node)) return;
    const stack = node;
    const mine = stack.node.findAll().filter((c): c is CfnResource => CfnResource.isCfnResource(c) && Stack.of(c) === stack);
    const idOf = (r: CfnResource) => stack.resolve(r.logicalId) as string;
    const roleOfFunction = new Map<string, Set<string>>();
    for (const r of mine) if (r instanceof CfnFunction) roleOfFunction.set(idOf(r), referenced(stack.resolve(r.role)));
    const policies = mine
      .filter((r): r is CfnPolicy => r instanceof CfnPolicy)
      .map((p) => ({ policy: p, roles: referenced(stack.resolve(p.roles)), grants: referenced(stack.resolve(p.policyDocument)) }));
    for (const r of mine) {
      const checked = checkedBy(r);
      if (!checked) continue;
      const runsAs = [...referenced(stack.resolve(checked.runsAs))];
      const roles = new Set(runsAs.flatMap((id) => [id, ...(roleOfFunction.get(id) ?? [])]));
      const names = referenced(stack.resolve(checked.names));
      for (const p of policies) {
        const forRole = [...p.roles].some((role) => roles.has(role));
        const grantsWhatItNames = [...names].some((id) => p.grants.has(id));
        // A policy that names the resource itself must come after it: never the other way round.
        if (forRole && grantsWhatItNames && !p.grants.has(idOf(r)))
          r.addResourceDependency(p.policy, 'its role is checked for this grant at creation');
      }
    }
  }
}
