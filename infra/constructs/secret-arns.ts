/**
 * The run role's secret grants as IAM resources, one per scope (infra/plan/secret-scope.ts says why a name
 * prefix): `secret:mcp-canary/*` and `parameter/mcp-canary/*` in the probe region's own account for
 * plain names, the same under an ARN's partition, region and account for ARNs.
 */
import { ArnFormat, type Stack } from 'aws-cdk-lib';
import { PARAMETER_NAME_PREFIX, SECRET_NAME_PREFIX, type SecretScope } from '../plan/secret-scope.ts';

/** Every name the rule admits: `mcp-canary/*` (the 6-character suffix Secrets Manager adds is inside the `*`). */
const SECRET_RESOURCE = `${SECRET_NAME_PREFIX}*`;
/** A parameter ARN holds the path without its leading "/". */
const PARAMETER_RESOURCE = `${PARAMETER_NAME_PREFIX.slice(1)}*`;

export function secretScopeArn(stack: Stack, scope: SecretScope): string {
  if (scope.service === 'secretsmanager') {
    if (scope.region === undefined)
      return stack.formatArn({
        service: 'secretsmanager',
        resource: 'secret',
        resourceName: SECRET_RESOURCE,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    return `arn:${scope.partition}:secretsmanager:${scope.region}:${scope.account}:secret:${SECRET_RESOURCE}`;
  }
  if (scope.region === undefined) return stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: PARAMETER_RESOURCE });
  return `arn:${scope.partition}:ssm:${scope.region}:${scope.account}:parameter/${PARAMETER_RESOURCE}`;
}
