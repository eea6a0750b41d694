/**
 * `checkQuotas(assembly)`: every stack of a synthesized cloud assembly measured against the AWS quotas
 * in limits.ts, as AWS will see it (the template file as uploaded, its values at their longest). Returns
 * the findings; an empty list means every quota holds. The plugin (plugin.ts) runs the same checks at
 * synth; tests and the scale test call this directly.
 */
import { readFileSync } from 'node:fs';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { Longest, type StackScope } from './longest.ts';
import { Quotas } from './limits.ts';
import { over, type Finding } from './finding.ts';
import { checkResource } from './rules.ts';
import { alarmsInFlight } from './in-flight.ts';
import type { CfnTemplate } from './template.ts';

export type { Finding } from './finding.ts';

export interface StackToCheck extends StackScope {
  /** Size of the template file as written (what `cdk deploy` uploads). */
  readonly templateBytes: number;
  /** Construct path of a logical id, to name the resource in the user's words. */
  readonly pathOf?: (logicalId: string) => string | undefined;
  /** Alarms the stack may create at once: the fleet's pace (infra/quotas/runtime.ts). @default - Quotas.alarmsInFlight.limit (3) */
  readonly alarmsInFlight?: number;
}

/** Every finding for one stack. */
export function checkStack(stack: StackToCheck): Finding[] {
  const { template, stackName } = stack;
  const l = new Longest(stack);
  const resources = template.Resources ?? {};
  const found: Array<Finding | undefined> = [
    over(stackName, Quotas.templateBytes, stack.templateBytes),
    over(stackName, Quotas.resources, Object.keys(resources).length),
    over(stackName, Quotas.outputs, Object.keys(template.Outputs ?? {}).length),
    over(stackName, Quotas.parameters, Object.keys(template.Parameters ?? {}).length),
    over(stackName, Quotas.mappings, Object.keys(template.Mappings ?? {}).length),
    ...Object.values(template.Mappings ?? {}).map((m) => over(stackName, Quotas.mappingAttributes, Object.keys(m).length)),
    over(stackName, Quotas.templateDescription, Buffer.byteLength(template.Description ?? '')),
    over(stackName, Quotas.stackName, stackName.length),
    over(stackName, { ...Quotas.alarmsInFlight, limit: stack.alarmsInFlight ?? Quotas.alarmsInFlight.limit }, alarmsInFlight(resources)),
    ...[resources, template.Outputs, template.Parameters, template.Mappings]
      .flatMap((section) => Object.keys(section ?? {}))
      .map((id) => over(stackName, Quotas.logicalId, id.length, { logicalId: id, what: id })),
  ];
  for (const [logicalId, resource] of Object.entries(resources)) {
    const subject = {
      logicalId,
      resource,
      get path() {
        return stack.pathOf?.(logicalId) ?? (resource.Metadata?.['aws:cdk:path'] as string | undefined);
      },
    };
    found.push(...checkResource({ l, stack: stackName, resources, subject }));
  }
  return found.filter((f): f is Finding => f !== undefined);
}

/** An environment-agnostic stack has `unknown-region` / `unknown-account` here. */
const known = (v: string) => (v.startsWith('unknown-') ? undefined : v);

/** Every finding for every stack of the assembly (nested assemblies of stages included). */
export function checkQuotas(assembly: CloudAssembly, o: { readonly alarmsInFlight?: number } = {}): Finding[] {
  return assembly.stacksRecursively.flatMap((s) => {
    const text = readFileSync(s.templateFullPath, 'utf8');
    return checkStack({
      stackName: s.stackName,
      template: JSON.parse(text) as CfnTemplate,
      templateBytes: Buffer.byteLength(text),
      region: known(s.environment.region),
      account: known(s.environment.account),
      alarmsInFlight: o.alarmsInFlight,
    });
  });
}
