/** The ARNs a run function may read its referenced secrets by, as IAM resources. */
import { ArnFormat, type Stack } from 'aws-cdk-lib';

/**
 * A secret by name is read in the probe region (as the run's SecretReader does); Secrets Manager adds a
 * random 6-character suffix to every secret's ARN, hence `-??????`. An ARN given in full is kept, and a
 * partial one (no suffix) gets the suffix pattern too.
 */
export function secretsManagerArns(stack: Stack, ref: string): string[] {
  if (ref.startsWith('arn:')) return [ref, `${ref}-??????`];
  return [
    stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${ref}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  ];
}

export function ssmParameterArn(stack: Stack, ref: string): string {
  if (ref.startsWith('arn:')) return ref;
  return stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: ref.replace(/^\//, '') });
}
