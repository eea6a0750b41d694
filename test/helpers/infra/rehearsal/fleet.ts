/**
 * The fleets a rehearsal deploys: a cloud assembly synthesized in-process with real bundling (the asset
 * the stacks deploy), and a generated fleet whose every target has a credential and a tool, pointed at
 * real MCP servers on loopback, with the secrets a user would create before `cdk deploy`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { App } from 'aws-cdk-lib';
import type { FleetInput } from '../../../../functions/base/config/schema/fleet.ts';
import type { HeaderSecretRef } from '../../../../functions/base/config/schema/target.ts';
import { probeRegionsOf } from '../../../../functions/base/config/schema/target-rule.ts';
import { McpCanaryFleet, type McpCanaryFleetOptions } from '../../../../infra/fleet.ts';
import { MOTO_ACCOUNT, type Aws } from './aws.ts';

export interface FleetToSynth {
  /** The construct id: names the fleet's stacks (`<id>-home`, …) and resources. */
  readonly id: string;
  readonly config: FleetInput;
  readonly options?: McpCanaryFleetOptions;
}

/**
 * Synthesizes fleets into one temporary cloud assembly, bundling the Lambdas as `cdk synth` does. One
 * app for all: the CDK bundles each handler once per app, and bundling is most of a synth's time.
 */
export function synthAssembly(fleets: readonly FleetToSynth[]): SynthesizedAssembly {
  return synthApp((app) => {
    for (const f of fleets) new McpCanaryFleet(app, f.id, f.config, f.options);
  });
}

export interface SynthesizedAssembly {
  readonly dir: string;
  remove(): void;
}

/** The context `cdk synth` gives the app: this repository's cdk.json. */
const CDK_CONTEXT =
  (JSON.parse(readFileSync(new URL('../../../../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> }).context ??
  {};

/**
 * Any CDK app, synthesized into a temporary cloud assembly as the CDK CLI would: with cdk.json's context
 * and version reporting on (the CLI's default, which adds an AWS::CDK::Metadata resource per stack).
 */
export function synthApp(build: (app: App) => void): SynthesizedAssembly {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-rehearsal-'));
  const app = new App({ outdir: dir, context: CDK_CONTEXT, analyticsReporting: true });
  build(app);
  app.synth();
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface FleetServers {
  /** A 2026-07-28 server and a 2025-11-25 one, each requiring `Bearer <token>`, whose tool answers. */
  readonly modern: string;
  readonly legacy: string;
  /** A 2026-07-28 server whose upstream key is revoked: its tool answers isError. */
  readonly revoked: string;
  readonly token: string;
}

export const GENERATED_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
/** The region where one target's stored credential is wrong: it fails there only. */
export const WRONG_CREDENTIAL = { target: 't-11', region: 'ap-southeast-2' } as const;
export const BRIEFS_QUEUE = 'rehearsal-briefs';

/**
 * `count` targets over three regions: two eras, every target with a credential (Secrets Manager, some
 * as a JSON key, or SSM) and a tool with an expected answer; every tenth revoked upstream; two on a
 * five-minute schedule from two regions; a maintenance window; briefs to a queue of the account.
 */
export function generatedFleet(count: number, servers: FleetServers, namespace: string): FleetInput {
  const targets = Array.from({ length: count }, (_, i) => {
    const name = `t-${String(i).padStart(2, '0')}`;
    const slow = i === 4 || i === 13;
    return {
      name,
      url: i % 10 === 7 ? servers.revoked : i % 3 === 0 ? servers.legacy : servers.modern,
      headerSecrets: { Authorization: secretRef(i, name) },
      tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } },
      // Verdicts must not depend on how loaded the machine is: slow is never degraded here, nor a timeout.
      timeoutMs: 25_000,
      degradedMs: 30_000,
      ...(slow ? { schedule: 'rate(5 minutes)', probeRegions: ['eu-west-1', 'ap-southeast-2'] } : {}),
    };
  });
  return {
    homeRegion: 'us-east-1',
    probeRegions: [...GENERATED_REGIONS],
    namespace,
    runbookUrl: 'https://runbooks.example.com/mcp-canary',
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/rehearsal/enqueue' }],
      tickets: [{ email: 'tickets@example.com' }],
      canaryOwner: [{ email: 'owner@example.com' }],
      briefs: [{ sqsQueueArn: `arn:aws:sqs:us-east-1:${MOTO_ACCOUNT}:${BRIEFS_QUEUE}` }],
    },
    maintenance: [{ name: 'sunday-deploys', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', targets: ['t-01', 't-02'] }],
    targets,
  } as FleetInput;
}

function secretRef(i: number, name: string): HeaderSecretRef {
  if (i % 2 === 1) return { ssmParameter: `/mcp-canary/rehearsal/${name}`, prefix: 'Bearer ' };
  return i % 4 === 0
    ? { secretsManager: `mcp-canary/rehearsal/${name}`, jsonKey: 'token', prefix: 'Bearer ' }
    : { secretsManager: `mcp-canary/rehearsal/${name}`, prefix: 'Bearer ' };
}

/** What the user creates before deploying: each target's secret in each region it is probed from, and the briefs queue. */
export async function createUserResources(aws: Aws, fleet: FleetInput, token: string): Promise<void> {
  await aws.at(fleet.homeRegion).sqs.send(new CreateQueueCommand({ QueueName: BRIEFS_QUEUE }));
  const jobs: Array<Promise<unknown>> = [];
  for (const t of fleet.targets) {
    const ref = t.headerSecrets!.Authorization!;
    for (const region of probeRegionsOf(fleet, t).regions) {
      const value = t.name === WRONG_CREDENTIAL.target && region === WRONG_CREDENTIAL.region ? 'not-the-token' : token;
      const at = aws.at(region);
      if ('ssmParameter' in ref)
        jobs.push(at.ssm.send(new PutParameterCommand({ Name: ref.ssmParameter, Value: value, Type: 'SecureString' })));
      else {
        const secret = ref.jsonKey ? JSON.stringify({ [ref.jsonKey]: value }) : value;
        jobs.push(at.secretsManager.send(new CreateSecretCommand({ Name: ref.secretsManager, SecretString: secret })));
      }
    }
  }
  await Promise.all(jobs);
}
