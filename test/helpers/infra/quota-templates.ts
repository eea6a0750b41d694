/**
 * Templates built to a measured size, for showing each quota check fires one past its limit and not at
 * it. The sizes are measured here, independently of the checker: the compact JSON IAM and the policy
 * APIs count, UTF-8 bytes where the quota is in bytes.
 */
import type { StackToCheck } from '../../../infra/quotas/check.ts';
import type { CfnResource, CfnTemplate } from '../../../infra/quotas/template.ts';

export const STACK = 'Quota-test';

/** A stack in us-east-1 (a known environment) holding these resources. */
export function stackWith(
  resources: Record<string, CfnResource>,
  template: Partial<CfnTemplate> = {},
  over: Partial<StackToCheck> = {},
): StackToCheck {
  const t: CfnTemplate = { Resources: resources, ...template };
  return {
    stackName: STACK,
    template: t,
    templateBytes: Buffer.byteLength(JSON.stringify(t, undefined, 1)),
    region: 'us-east-1',
    account: '111122223333',
    ...over,
  };
}

export const one = (type: string, properties: Record<string, unknown>, id = 'Subject'): Record<string, CfnResource> => ({
  [id]: { Type: type, Properties: properties },
});

/**
 * `make(pad)` with `pad` ('x' repeated) chosen so that `measure` of the result is exactly `n`; throws if
 * the measure does not grow one for one with the pad (the builder would not say what the test claims).
 */
export function padded<T>(n: number, make: (pad: string) => T, measure: (t: T) => number): T {
  const base = measure(make(''));
  if (n < base) throw new Error(`cannot build ${n}: the smallest is ${base}`);
  const built = make('x'.repeat(n - base));
  if (measure(built) !== n) throw new Error(`built ${measure(built)}, wanted ${n}`);
  return built;
}

export const chars = (v: unknown) => JSON.stringify(v).length;
export const bytes = (v: unknown) => Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v));
export const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** A policy document with one statement whose resource carries the pad. */
export function policy(pad: string, statement: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: `arn:aws:sqs:us-east-1:111122223333:${pad}`, ...statement }],
  };
}

/**
 * The run role as today's design renders it for `n` secret references: one `secretsmanager:GetSecretValue`
 * resource per secret, each an `Fn::Join` over the partition and account (as `Stack.formatArn` writes it).
 */
export function runRoleWithSecrets(n: number, region = 'us-east-1'): CfnResource {
  const arn = (i: number) => ({
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, `:secretsmanager:${region}:`, { Ref: 'AWS::AccountId' }, `:secret:mcp-canary/svc-${i}-??????`],
    ],
  });
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } }],
      },
      Policies: [
        {
          PolicyName: 'run',
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: times(n, arn) }],
          },
        },
      ],
    },
    Metadata: { 'aws:cdk:path': 'McpCanary/Probe-us-east-1/RunRole/Resource' },
  };
}
