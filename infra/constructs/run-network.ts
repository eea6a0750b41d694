/**
 * A probe region's run functions inside the VPC the fleet's proxy names (infra/plan/network.ts): the
 * subnets and security groups on each function, and the network-interface permissions Lambda needs on
 * the run role to place them — scoped to those subnets and groups and this account and region, not
 * AWS's managed AWSLambdaVPCAccessExecutionRole (`Resource: *` for every action, cdk-nag IAM4).
 *
 * The VPC is not looked up (`Vpc.fromLookup` needs an account at synth): the ids go on the function as
 * given, and CloudFormation refuses a subnet or group that does not exist. The functions still reach
 * AWS (CloudWatch, Secrets Manager, SSM, DynamoDB) directly, not through the proxy: the VPC needs VPC
 * endpoints or a NAT for those (docs/config.md says so).
 */
import { Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { VpcPlacement } from '../../functions/base/config/schema/proxy.ts';
import { acknowledgeWildcardResources } from './acknowledge.ts';

/** The role statements a function in `vpc` needs (AWS Lambda developer guide, "execution role and VPC"). */
export function vpcStatements(stack: Stack, vpc: VpcPlacement): PolicyStatement[] {
  const arn = (resource: string) => stack.formatArn({ service: 'ec2', resource });
  const interfaces = arn('network-interface/*');
  return [
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['ec2:CreateNetworkInterface'],
      resources: [
        interfaces,
        ...vpc.subnetIds.map((id) => arn(`subnet/${id}`)),
        ...vpc.securityGroupIds.map((id) => arn(`security-group/${id}`)),
      ],
    }),
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'],
      resources: [interfaces],
    }),
    // Describe* have no resource-level permissions.
    new PolicyStatement({ effect: Effect.ALLOW, actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'], resources: ['*'] }),
  ];
}

/** Adds the statements to the run role, with the cdk-nag acknowledgements their wildcards need. */
export function allowVpcPlacement(role: Role, vpc: VpcPlacement): void {
  const stack = Stack.of(role);
  const statements = vpcStatements(stack, vpc);
  for (const s of statements) role.addToPrincipalPolicy(s);
  acknowledgeWildcardResources(
    role,
    statements.flatMap((s) => s.resources),
    'Lambda creates and deletes the network interfaces of a VPC function itself; their ids are not known before, so the grant is network-interface/* in this account and region (creation also limited to the fleet’s subnets and security groups), and EC2 Describe* support no resource-level permission.',
  );
}

/** Places one function in the VPC: its subnets and security groups (the escape hatch: no VPC lookup at synth). */
export function placeInVpc(fn: LambdaFunction, vpc: VpcPlacement): void {
  const cfn = fn.node.defaultChild as CfnFunction;
  cfn.vpcConfig = { subnetIds: [...vpc.subnetIds], securityGroupIds: [...vpc.securityGroupIds] };
}
