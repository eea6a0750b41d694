/** IAM roles, inline and managed policies, created by moto's CloudFormation and read back with GetRole / GetRolePolicy / GetPolicy. */
import {
  AttachRolePolicyCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  ListAttachedRolePoliciesCommand,
} from '@aws-sdk/client-iam';
import type { RegionClients } from '../aws.ts';
import { parseJson } from '../properties.ts';
import type { CreatedByMoto, ResourceContext } from './handler.ts';

interface InlinePolicy {
  readonly PolicyName: string;
  readonly PolicyDocument: unknown;
}

async function inlinePolicy(ctx: ResourceContext, role: string, name: string): Promise<unknown> {
  return parseJson((await ctx.aws.iam.send(new GetRolePolicyCommand({ RoleName: role, PolicyName: name }))).PolicyDocument);
}

export const role: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, name) {
    const read = (await ctx.aws.iam.send(new GetRoleCommand({ RoleName: name }))).Role!;
    ctx.findings.same(
      `${ctx.where} AssumeRolePolicyDocument`,
      parseJson(read.AssumeRolePolicyDocument),
      await ctx.props.need('AssumeRolePolicyDocument'),
    );
    for (const p of ['Description', 'Path', 'MaxSessionDuration', 'RoleName'] as const) {
      const expected = await ctx.props.get(p);
      if (expected !== undefined) ctx.findings.same(`${ctx.where} ${p}`, read[p], expected);
    }
    for (const p of (await ctx.props.get<InlinePolicy[]>('Policies')) ?? []) {
      ctx.findings.same(`${ctx.where} policy ${p.PolicyName}`, await inlinePolicy(ctx, name, p.PolicyName), p.PolicyDocument);
    }
    // moto 5.2's CloudFormation ignores a role's ManagedPolicyArns: attached here, as CloudFormation would.
    const managed = await ctx.props.get<string[]>('ManagedPolicyArns');
    if (managed !== undefined) {
      for (const arn of managed) await ctx.aws.iam.send(new AttachRolePolicyCommand({ RoleName: name, PolicyArn: arn }));
      const attached = (await ctx.aws.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: name }))).AttachedPolicies ?? [];
      ctx.findings.same(`${ctx.where} ManagedPolicyArns`, attached.map((a) => a.PolicyArn).sort(), [...managed].sort());
    }
    const boundary = await ctx.props.get<string>('PermissionsBoundary');
    if (boundary !== undefined)
      ctx.findings.same(`${ctx.where} PermissionsBoundary`, read.PermissionsBoundary?.PermissionsBoundaryArn, boundary);
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
  },
  async attribute(aws: RegionClients, name, attribute) {
    const read = (await aws.iam.send(new GetRoleCommand({ RoleName: name }))).Role!;
    return attribute === 'Arn' ? read.Arn : attribute === 'RoleId' ? read.RoleId : undefined;
  },
};

export const policy: CreatedByMoto = {
  by: 'moto',
  async verify(ctx) {
    const name = await ctx.props.need<string>('PolicyName');
    const document = await ctx.props.need('PolicyDocument');
    for (const r of (await ctx.props.get<string[]>('Roles')) ?? []) {
      ctx.findings.same(`${ctx.where} ${name} on role ${r}`, await inlinePolicy(ctx, r, name), document);
    }
  },
};

export const managedPolicy: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, arn) {
    const read = (await ctx.aws.iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy!;
    const version = await ctx.aws.iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: read.DefaultVersionId }));
    ctx.findings.same(`${ctx.where} PolicyDocument`, parseJson(version.PolicyVersion?.Document), await ctx.props.need('PolicyDocument'));
    for (const p of ['ManagedPolicyName', 'Description', 'Path'] as const) {
      const expected = await ctx.props.get(p);
      // IAM answers no Description for an empty one, which is what the CDK writes by default.
      const actual = p === 'ManagedPolicyName' ? read.PolicyName : p === 'Description' ? (read.Description ?? '') : read[p];
      if (expected !== undefined) ctx.findings.same(`${ctx.where} ${p}`, actual, expected);
    }
    for (const r of (await ctx.props.get<string[]>('Roles')) ?? []) {
      const attached = (await ctx.aws.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: r }))).AttachedPolicies ?? [];
      if (!attached.some((a) => a.PolicyArn === arn)) ctx.findings.add(`${ctx.where}: not attached to role ${r}`);
    }
  },
};
