/**
 * cdk-nag acknowledgements for wildcards we mean. cdk-nag names an AwsSolutions-IAM5 finding after the
 * resource as the stack resolves it (`arn:<AWS::Partition>:logs:eu-west-1:<AWS::AccountId>:…`, or the
 * literal account when the stack has one), so an acknowledgement written out by hand matches only one
 * of those environments. This renders the id from the resolved resource the way cdk-nag flattens it
 * (Ref → `<Name>`, GetAtt → `<Res.Attr>`, Join → joined, `${X}` → `<X>`): hand-written because cdk-nag
 * is the app's choice, not a dependency of this package.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export function acknowledgeWildcardResources(scope: IConstruct, resources: readonly string[], reason: string): void {
  const stack = Stack.of(scope);
  for (const resource of new Set(resources.map((r) => flatten(stack.resolve(r))))) {
    if (!resource.includes('*')) continue;
    Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }
}

function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const o = node as Record<string, unknown>;
  if ('Fn::Join' in o) {
    const [sep, items] = o['Fn::Join'] as [string, unknown[]];
    return items.map(flatten).join(sep);
  }
  if ('Fn::Sub' in o) return flatten(o['Fn::Sub']);
  if ('Fn::GetAtt' in o) {
    const [res, attr] = o['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(res)}.${flatten(attr)}>`;
  }
  if ('Ref' in o) return `<${flatten(o.Ref)}>`;
  return JSON.stringify(node);
}
