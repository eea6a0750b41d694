/**
 * The delegated-OAuth refresher (functions/lambdas/refresh): one function in the home region, the only writer
 * of each grant. No reserved concurrency: a duplicate or overlapping delivery is kept off the one refresh token a
 * rotating server accepts by the lease in the grant (a compare-and-swap, functions/engine/auth/rotate.ts), and a
 * reservation fails the deploy on an account whose concurrency quota is 100 or less (new accounts: Lambda keeps
 * 100 unreserved). A schedule every REFRESH_EVERY with the grants as its input,
 * no retries (the next run is minutes away), and least privilege: read and write exactly each grant
 * secret in the home region, and write the `mcp-canary/…/access` tokens in the probe regions (a name
 * pattern per region, so the policy does not grow by a region's ARN for every grant).
 * A refused grant alarms the canary owner (CanaryCredentialRefused), never a target's pager.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { configError } from '../../functions/base/common/errors.ts';
import { EnvVar } from '../../functions/base/config/env/env.ts';
import {
  accessSecretName,
  caRegion,
  CREDENTIAL_REFUSED_METRIC,
  type RefreshEvent,
} from '../../functions/base/config/schema/oauth-delegated.ts';
import type { FleetNames } from '../plan/names.ts';
import { fleetError } from '../plan/checks.ts';
import {
  MAX_SECRET_SCOPES_PER_REGION,
  PARAMETER_NAME_PREFIX,
  scopeOf,
  SECRET_NAME_PREFIX,
  type SecretRefAt,
} from '../plan/secret-scope.ts';
import { secretScopeArn } from './secret-arns.ts';
import type { FleetPlan } from '../plan/plan.ts';
import { acknowledgeWildcardResources } from './acknowledge.ts';
import { CanaryFunction, canaryLogGroup } from './canary-function.ts';
import { ownerAlarm } from './owner-alarm.ts';
import { shownUrl } from '../../functions/base/common/shown-url.ts';

/** How often the refresher looks at every grant: access tokens must live longer than twice this. */
export const REFRESH_EVERY = Duration.minutes(5);
export const REFRESHER_TIMEOUT = Duration.seconds(60);
/** EventBridge's limit on a target's Input. */
export const MAX_RULE_INPUT_CHARS = 8192;

/** The grants the refresher keeps: every target with `auth.authorizationCode` in Secrets Manager. */
export function refreshEventOf(plan: FleetPlan): RefreshEvent {
  return {
    grants: plan.fleet.targets.flatMap((t, i) => {
      const code = t.auth?.authorizationCode;
      if (!code || !('secretsManager' in code.store)) return [];
      return [
        {
          target: t.name,
          url: t.url,
          secret: code.store.secretsManager,
          regions: [...plan.targets[i]!.regions],
          ...(code.refreshTokenLifetimeDays !== undefined ? { refreshTokenLifetimeDays: code.refreshTokenLifetimeDays } : {}),
          allowPrivateNetwork: code.allowPrivateNetwork,
          // The private CAs the target's runs trust (a file reference is refused at synth: checks.ts).
          ...(t.tls?.ca && !('file' in t.tls.ca) ? { ca: t.tls.ca } : {}),
        },
      ];
    }),
  };
}

export interface RefresherProps {
  readonly names: FleetNames;
  readonly plan: FleetPlan;
  readonly canaryOwnerTopicArn: string;
  readonly logRetention?: RetentionDays;
}

export class Refresher extends Construct {
  readonly function: CanaryFunction;

  constructor(scope: Construct, id: string, props: RefresherProps) {
    super(scope, id);
    const { names, plan } = props;
    const event = refreshEventOf(plan);
    const input = JSON.stringify(event);
    if (input.length > MAX_RULE_INPUT_CHARS) {
      // The config's doing, not the construct's: a config error (exit 2, one line), never a stack trace.
      throw configError(
        `mcp-canary fleet config: ${event.grants.length} targets with auth.authorizationCode make the refresher's schedule input ${input.length} characters, over the ${MAX_RULE_INPUT_CHARS} EventBridge allows a rule target's Input: shorten their grant secret names (auth.authorizationCode.store.secretsManager), their tls.ca references or their probeRegions, or split the fleet in two (two fleet configs, each with its own \`name\`).`,
      );
    }
    const stack = Stack.of(this);
    // `-??????`: the six characters Secrets Manager appends to a secret's ARN, and no more: exactly this secret.
    const secretArn = (region: string, name: string) =>
      stack.formatArn({
        service: 'secretsmanager',
        region,
        resource: 'secret',
        resourceName: `${name}-??????`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    const grants = event.grants.map((g) => secretArn(plan.homeRegion, g.secret));
    // The access tokens it publishes, by one name pattern per probe region rather than one ARN per grant and
    // region: those grew the role's inline policy by ~90 characters a region for every delegated target, over
    // IAM's 10,240 at ~18 targets in 5 regions. `mcp-canary/*/access` is the name only `accessSecretName`
    // gives (the grant's name plus /access), under the prefix the run already reads; the grants themselves,
    // which hold refresh tokens, stay exact (and are bounded by the schedule input's 8,192 characters).
    const regions = [...new Set(event.grants.flatMap((g) => g.regions))];
    const published = regions.map((r) => secretArn(r, accessSecretName(`${SECRET_NAME_PREFIX}*`)));
    // The targets' private CAs (tls.ca) it trusts for their authorization servers: read-only, by the run role's
    // rule (secret-scope.ts): one `mcp-canary/*` resource per service, account and region they are read in, never
    // one per target, so the role policy does not grow with the fleet. A plain name is read where the target's runs
    // read it (caRegion); an ARN in its own region and account. The grants, which hold refresh tokens, stay exact.
    const caScopes = new Map<string, { service: SecretRefAt['service']; arn: string }>();
    for (const g of event.grants) {
      if (!g.ca) continue;
      const ref: SecretRefAt =
        'secretsManager' in g.ca
          ? { field: 'tls.ca.secretsManager', service: 'secretsmanager', id: g.ca.secretsManager }
          : { field: 'tls.ca.ssmParameter', service: 'ssm', id: g.ca.ssmParameter };
      const index = plan.fleet.targets.findIndex((t) => t.name === g.target);
      const scope = scopeOf(index, g.target, ref);
      const region = scope.region ?? caRegion(g, plan.homeRegion);
      const key = [scope.service, scope.partition, region, scope.account].join(':');
      if (caScopes.has(key)) continue;
      if (caScopes.size === MAX_SECRET_SCOPES_PER_REGION)
        throw fleetError(
          index,
          g.target,
          ref.field,
          `(${JSON.stringify(ref.id)}) brings the scopes the refresher reads private CAs from to ${caScopes.size + 1}; at most ${MAX_SECRET_SCOPES_PER_REGION} fit its role policy. Keep the CA bundles in fewer accounts, regions or services`,
        );
      const arn =
        scope.region !== undefined
          ? secretScopeArn(stack, scope)
          : scope.service === 'secretsmanager'
            ? stack.formatArn({
                service: 'secretsmanager',
                region,
                resource: 'secret',
                resourceName: `${SECRET_NAME_PREFIX}*`,
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              })
            : stack.formatArn({ service: 'ssm', region, resource: 'parameter', resourceName: `${PARAMETER_NAME_PREFIX.slice(1)}*` });
      caScopes.set(key, { service: scope.service, arn });
    }
    const caSecrets = [...caScopes.values()].filter((c) => c.service === 'secretsmanager').map((c) => c.arn);
    const caParameters = [...caScopes.values()].filter((c) => c.service === 'ssm').map((c) => c.arn);
    const logGroup = canaryLogGroup(this, 'Logs', `/mcp-canary/${names.fleet}/refresh`, props.logRetention);
    const role = new Role(this, 'Role', {
      description:
        'mcp-canary refresher: renews each delegated grant (its secret only) and publishes the access token to the probe regions.',
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        refresh: new PolicyDocument({
          statements: [
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [logGroup.logGroupArn],
            }),
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
              resources: grants,
            }),
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:CreateSecret'],
              resources: published,
            }),
            ...(caSecrets.length
              ? [new PolicyStatement({ effect: Effect.ALLOW, actions: ['secretsmanager:GetSecretValue'], resources: caSecrets })]
              : []),
            ...(caParameters.length
              ? [new PolicyStatement({ effect: Effect.ALLOW, actions: ['ssm:GetParameter'], resources: caParameters })]
              : []),
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['cloudwatch:PutMetricData'],
              resources: ['*'],
              conditions: { StringEquals: { 'cloudwatch:namespace': plan.namespace } },
            }),
          ],
        }),
      },
    });
    acknowledgeWildcardResources(
      role,
      published,
      "The delegated access tokens the refresher publishes, by their name pattern (mcp-canary/<grant>/access) in each probe region: one resource per region instead of one per grant and region, which IAM's 10,240-character role policy limit would not hold.",
    );
    acknowledgeWildcardResources(
      role,
      [...caSecrets, ...caParameters],
      "The targets' private CA bundles (tls.ca) the refresher trusts for their authorization servers, read-only under the mcp-canary/* (SSM: /mcp-canary/*) names synth enforces on every reference (infra/plan/secret-scope.ts): one resource per account and region, as the run role reads them, so the role policy does not grow per target.",
    );
    acknowledgeWildcardResources(
      role,
      ['*'],
      'cloudwatch:PutMetricData supports no resource-level permission; the cloudwatch:namespace condition limits it to the fleet namespace.',
    );

    this.function = new CanaryFunction(this, 'Function', {
      handlerName: 'refresh',
      functionName: `${names.fleet}-refresh`,
      description:
        'mcp-canary: the one writer of each delegated OAuth grant; renews it and publishes the access token to the probe regions.',
      memorySize: 256,
      timeout: REFRESHER_TIMEOUT,
      role,
      logGroup,
      // No reservedConcurrentExecutions: the lease serializes refreshers (see above), and infra/quotas refuses any.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(2),
      environment: { [EnvVar.homeRegion]: plan.homeRegion, [EnvVar.namespace]: plan.namespace },
    });

    new Rule(this, 'Schedule', {
      description: `mcp-canary ${names.fleet}: keeps the delegated OAuth grants fresh.`,
      schedule: Schedule.rate(REFRESH_EVERY),
      targets: [
        new LambdaFunction(this.function, { event: RuleTargetInput.fromObject(event), retryAttempts: 0, maxEventAge: Duration.minutes(2) }),
      ],
    });

    ownerAlarm(this, 'Errors', {
      alarmName: names.canaryAlarm('refresh-errors'),
      description: `The mcp-canary refresher failed: delegated grants are not being renewed, and their targets' runs turn inconclusive (canary_credential) when the access tokens expire. For the canary owner. Look at /mcp-canary/${names.fleet}/refresh.`,
      metric: this.function.metricErrors({ period: REFRESH_EVERY, statistic: 'Sum' }),
      ownerTopicArn: props.canaryOwnerTopicArn,
    });
    for (const g of event.grants) {
      ownerAlarm(this, `Credential-${g.target}`, {
        alarmName: names.canaryAlarm(`${g.target}-credential`),
        description: [
          `The canary's own delegated OAuth grant for target ${g.target} was refused (revoked, expired or consent withdrawn): its runs end inconclusive (canary_credential); the endpoint's owner is not paged.`,
          `Fix: mcp-canary login ${shownUrl(g.url)} --store-secret ${g.secret} --region ${plan.homeRegion} (or mcp-canary login --config <file> --target ${g.target}).`,
        ].join('\n'),
        metric: new Metric({
          namespace: plan.namespace,
          metricName: CREDENTIAL_REFUSED_METRIC,
          dimensionsMap: { Target: g.target },
          period: REFRESH_EVERY,
          statistic: 'Maximum',
        }),
        ownerTopicArn: props.canaryOwnerTopicArn,
      });
    }
  }
}
