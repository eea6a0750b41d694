/**
 * What the run functions need when the fleet exports OpenTelemetry (functions/io/telemetry): the settings in
 * their environment (references, never a secret), and IAM for exactly what is configured — AWS's OTLP
 * traces endpoint is authorized as `xray:PutTraceSegments` (X-Ray developer guide, "OTLP endpoint";
 * the AWSXrayWriteOnlyPolicy action), the CloudWatch OTLP metrics endpoint as `cloudwatch:PutMetricData`,
 * and each header reference is read by name in the probe region. Nothing at all when telemetry is off.
 */
import { ArnFormat, type Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { TELEMETRY_ENV, type TelemetrySettings } from '../../functions/base/config/schema/telemetry.ts';

/** The SigV4 signing names and the action AWS authorizes their OTLP endpoint with. */
const OTLP_ACTION: Readonly<Record<string, string>> = { xray: 'xray:PutTraceSegments', monitoring: 'cloudwatch:PutMetricData' };

export function telemetryEnvironment(settings: TelemetrySettings | undefined): Record<string, string> {
  return settings ? { [TELEMETRY_ENV]: JSON.stringify(settings) } : {};
}

export function telemetryStatements(stack: Stack, settings: TelemetrySettings | undefined): PolicyStatement[] {
  if (!settings) return [];
  const actions = [
    ...new Set([settings.traces, settings.metrics].map((t) => t?.sigv4 && OTLP_ACTION[t.sigv4.service]).filter((a) => a !== undefined)),
  ];
  const statements: PolicyStatement[] = [];
  // Neither action has a resource type; OTLP metrics carry no namespace the condition key could match.
  if (actions.length) statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions, resources: ['*'] }));
  const refs = Object.values(settings.headers);
  const secrets = refs.flatMap((r) =>
    'secretsManager' in r
      ? [
          stack.formatArn({
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${r.secretsManager}-??????`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ]
      : [],
  );
  const parameters = refs.flatMap((r) =>
    'ssmParameter' in r ? [stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: r.ssmParameter.slice(1) })] : [],
  );
  if (secrets.length)
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['secretsmanager:GetSecretValue'], resources: secrets }));
  if (parameters.length)
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['ssm:GetParameter'], resources: parameters }));
  return statements;
}

/** Why the role's `Resource::*` stands for the telemetry actions, for the cdk-nag acknowledgement. */
export function telemetryWildcardReason(settings: TelemetrySettings | undefined): string {
  return settings && [settings.traces, settings.metrics].some((t) => t?.sigv4)
    ? ' The OTLP export actions (xray:PutTraceSegments, cloudwatch:PutMetricData) support no resource-level permission either.'
    : '';
}
