/**
 * The fleet that turns on what the example fleet leaves off: SLO burn alarms, a public status page, a
 * delegated-OAuth target (the refresher), an egress proxy with a VPC per probe region, and telemetry to
 * a collector. Small (3 targets × 2 regions): what it proves is that every resource type and property
 * these add is deployed, resolved and read back, not scale. With the VPCs and secrets a user makes first.
 */
import { CreateSecurityGroupCommand, CreateSubnetCommand, CreateVpcCommand } from '@aws-sdk/client-ec2';
import { GetBucketPolicyCommand, PutBucketPolicyCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import type { FleetInput } from '../../../../functions/base/config/schema/fleet.ts';
import type { Aws } from './aws.ts';

export const FEATURE_REGIONS = ['us-east-1', 'eu-west-1'] as const;
export const GRANT_SECRET = 'mcp-canary/rehearsal/docs/grant';
const PROXY_SECRET = 'mcp-canary/rehearsal/proxy';
const OTEL_SECRET = 'mcp-canary/rehearsal/otel-key';

/** A VPC the user made before deploying, in one probe region: what `proxy.vpcs` names. */
export interface UserVpc {
  readonly vpcId: string;
  readonly subnetIds: string[];
  readonly securityGroupIds: string[];
}

export interface FeatureEndpoints {
  /** A 2026-07-28 and a 2025-11-25 server whose tool answers; no credential. */
  readonly modern: string;
  readonly legacy: string;
  /** An OTLP/HTTP collector on loopback (`http://127.0.0.1:<port>`). */
  readonly collector: string;
}

export function featureFleet(namespace: string, vpcs: Readonly<Record<string, UserVpc>>, urls: FeatureEndpoints): FleetInput {
  const tool = { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } };
  return {
    homeRegion: 'us-east-1',
    probeRegions: [...FEATURE_REGIONS],
    namespace,
    runbookUrl: 'https://runbooks.example.com/mcp-canary',
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/rehearsal/enqueue' }],
      tickets: [{ email: 'tickets@example.com' }],
      canaryOwner: [{ email: 'owner@example.com' }],
    },
    slo: { objective: 99.5, burnAlarms: true },
    statusPage: { public: true, title: 'Rehearsal status' },
    // No proxy listens: every endpoint here is on loopback, which goes direct.
    proxy: {
      url: 'http://proxy.internal:3128',
      credentials: { secretsManager: PROXY_SECRET },
      noProxy: ['127.0.0.1', 'localhost'],
      vpcs: { ...vpcs },
    },
    telemetry: { otlp: { endpoint: urls.collector, headers: { 'x-api-key': { secretsManager: OTEL_SECRET } } } },
    targets: [
      // Verdicts must not depend on how loaded the machine is: slow is never degraded here, nor a timeout.
      { name: 'rates', url: urls.modern, tool, timeoutMs: 25_000, degradedMs: 30_000 },
      { name: 'legacy', url: urls.legacy, slo: { objective: 99 }, tool, timeoutMs: 25_000, degradedMs: 30_000 },
      {
        name: 'docs',
        url: 'https://mcp.docs.example.com/v1/mcp',
        probeRegions: ['eu-west-1'],
        auth: { authorizationCode: { store: { secretsManager: GRANT_SECRET }, refreshTokenLifetimeDays: 90 } },
      },
    ],
  } as FleetInput;
}

/** Per probe region, a VPC with two subnets in two zones and a security group, as `proxy.vpcs` wants them. */
export async function createUserVpcs(aws: Aws): Promise<Record<string, UserVpc>> {
  const out: Record<string, UserVpc> = {};
  for (const region of FEATURE_REGIONS) {
    const ec2 = aws.at(region).ec2;
    const vpcId = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.20.0.0/16' }))).Vpc!.VpcId!;
    const subnetIds = await Promise.all(
      ['a', 'b'].map(
        async (zone, i) =>
          (await ec2.send(new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: `10.20.${i}.0/24`, AvailabilityZone: `${region}${zone}` })))
            .Subnet!.SubnetId!,
      ),
    );
    const sg = await ec2.send(
      new CreateSecurityGroupCommand({ VpcId: vpcId, GroupName: 'mcp-canary-run', Description: 'egress to the proxy' }),
    );
    out[region] = { vpcId, subnetIds, securityGroupIds: [sg.GroupId!] };
  }
  return out;
}

/** The secrets the fleet references, in every probe region (a plain name is read where the function runs). */
export async function createFeatureSecrets(aws: Aws): Promise<void> {
  const values: Record<string, string> = {
    [PROXY_SECRET]: 'canary:proxy-password-1d2c',
    [OTEL_SECRET]: 'otel-key-7a41',
    // What `mcp-canary login` stores; the refresher is not run here, so any grant-shaped JSON will do.
    [GRANT_SECRET]: JSON.stringify({ placeholder: true }),
  };
  await Promise.all(
    FEATURE_REGIONS.flatMap((region) =>
      Object.entries(values).map(([Name, SecretString]) =>
        aws.at(region).secretsManager.send(new CreateSecretCommand({ Name, SecretString })),
      ),
    ),
  );
}

interface Statement {
  readonly Effect: string;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

/** The CDK's TLS-only statements (`enforceSSL`): deny when not over TLS, or under TLS 1.2. */
function tlsOnly(s: Statement): boolean {
  return (
    s.Effect === 'Deny' &&
    (s.Condition?.Bool?.['aws:SecureTransport'] !== undefined || s.Condition?.NumericLessThan?.['s3:TlsVersion'] !== undefined)
  );
}

/**
 * Runs `work` with the bucket's TLS-only statements lifted, then puts the deployed policy back.
 * moto 5.2 evaluates a bucket policy's conditions against an empty request context, and a statement whose
 * condition does not hold answers DENIED (Allow or Deny alike): the TLS-only Deny then refuses every
 * PutObject and GetObject, where S3 refuses only those not over TLS 1.2+ (every SDK call is over TLS).
 * Only those statements are lifted, for the invocation only; the rest of the policy stays in force.
 */
export async function withTlsOnlyLifted<T>(s3: S3Client, bucket: string, work: () => Promise<T>): Promise<T> {
  const deployed = (await s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy!;
  const policy = JSON.parse(deployed) as { Statement: Statement[] };
  const rest = policy.Statement.filter((s) => !tlsOnly(s));
  if (rest.length === policy.Statement.length) throw new Error(`the policy of ${bucket} has no TLS-only statement to lift`);
  await s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify({ ...policy, Statement: rest }) }));
  try {
    return await work();
  } finally {
    await s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: deployed }));
  }
}
