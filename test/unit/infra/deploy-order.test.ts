/**
 * The order a deploy creates things in, read from the synthesized templates and the assembly's stack
 * dependencies, the way CloudFormation and `cdk deploy` read them:
 * - a resource Lambda checks against a role at creation (an EventInvokeConfig's destination) depends on the
 *   separate IAM policy that grants it, in every stack of a fleet with every feature on;
 * - CloudFormation can have at most 3 alarms in flight in any stack (PutMetricAlarm: 3 calls a second), and
 *   the home Region's alarm stacks deploy one after another;
 * - the synth prints how long the alarms take.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Aspects } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { GrantsBeforeChecks } from '../../../infra/constructs/grant-order.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { alarmsInFlight } from '../../../infra/quotas/in-flight.ts';
import type { CfnResource } from '../../../infra/quotas/template.ts';
import { featureFleet } from '../../helpers/infra/rehearsal/features.ts';
import { newTestApp, smallFleet } from '../../helpers/infra/synth.ts';

interface Synth {
  readonly fleet: McpCanaryFleet;
  readonly templates: Map<string, { Resources: Record<string, CfnResource> }>;
  /** Stack name → the stack names it deploys after. */
  readonly after: Map<string, string[]>;
}

function synth(config: FleetInput, options: ConstructorParameters<typeof McpCanaryFleet>[3] = {}): Synth {
  const { app, cleanup } = newTestApp();
  try {
    const fleet = new McpCanaryFleet(app, 'McpCanary', config, options);
    const assembly = app.synth();
    const templates = new Map(assembly.stacks.map((s) => [s.stackName, s.template as { Resources: Record<string, CfnResource> }]));
    const after = new Map(
      assembly.stacks.map((s) => [
        s.stackName,
        s.dependencies.map((d) => (d as { stackName?: string }).stackName).filter(Boolean) as string[],
      ]),
    );
    return { fleet, templates, after };
  } finally {
    cleanup();
  }
}

const vpc = { vpcId: 'vpc-1234567890abcdef0', subnetIds: ['subnet-1234567890abcdef0'], securityGroupIds: ['sg-1234567890abcdef0'] };
const everything = () =>
  featureFleet(
    'McpCanaryOrder',
    { 'us-east-1': vpc, 'eu-west-1': vpc },
    {
      modern: 'http://127.0.0.1:1/mcp',
      legacy: 'http://127.0.0.1:2/mcp',
      collector: 'http://127.0.0.1:3',
    },
  );

/** Logical ids a template value refers to. */
function refs(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => refs(x, out));
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.Ref === 'string') out.add(o.Ref);
    if (Array.isArray(o['Fn::GetAtt'])) out.add(o['Fn::GetAtt'][0] as string);
    Object.values(o).forEach((x) => refs(x, out));
  }
  return out;
}

const dependsOn = (r: CfnResource) => (typeof r.DependsOn === 'string' ? [r.DependsOn] : [...(r.DependsOn ?? [])]);

/** The role a resource acts as: one it names as its identity, or, for Lambda's own settings, its function's role. */
function identity(r: CfnResource, roleOf: Map<string, string[]>): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (/^(Role|RoleArn|ExecutionRoleArn)$/.test(k)) refs(x, out);
        else walk(x);
      }
  };
  walk(r.Properties);
  if (r.Type.startsWith('AWS::Lambda::') && r.Type !== 'AWS::Lambda::Function')
    for (const fn of refs(r.Properties?.FunctionName)) for (const role of roleOf.get(fn) ?? []) out.add(role);
  return out;
}

/**
 * Every resource that acts as a role and names something a separate AWS::IAM::Policy of that role grants, with
 * the policy it does not wait for.
 */
function unorderedGrants(resources: Record<string, CfnResource>): string[] {
  const roleOf = new Map(
    Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id, r]) => [id, [...refs(r.Properties?.Role)]]),
  );
  const policies = Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::IAM::Policy')
    .map(([id, r]) => ({ id, roles: refs(r.Properties?.Roles), grants: refs(r.Properties?.PolicyDocument) }));
  const missing: string[] = [];
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type.startsWith('AWS::IAM::')) continue;
    const actsAs = identity(r, roleOf);
    const named = refs(r.Properties);
    for (const p of policies) {
      const forItsRole = [...p.roles].some((role) => actsAs.has(role));
      const grantsWhatItNames = [...named].some((n) => p.grants.has(n));
      if (forItsRole && grantsWhatItNames && !p.grants.has(id) && !dependsOn(r).includes(p.id)) missing.push(`${id} (${r.Type}) → ${p.id}`);
    }
  }
  return missing;
}

describe('first deploy: a resource checked against a role waits for the policy that grants it', () => {
  it('in every stack of a fleet with every feature on: the run and brief EventInvokeConfigs wait for the policy that lets them send to their queue', () => {
    // Prepare
    const s = synth(everything());
    // Act
    const missing = [...s.templates].flatMap(([name, t]) => unorderedGrants(t.Resources).map((m) => `${name}: ${m}`));
    const invokeConfigs = [...s.templates.values()].flatMap((t) =>
      Object.values(t.Resources).filter((r) => r.Type === 'AWS::Lambda::EventInvokeConfig' && r.Properties?.DestinationConfig),
    );
    // Assess
    expect(missing).toEqual([]);
    expect(invokeConfigs.length).toBeGreaterThanOrEqual(3);
    for (const c of invokeConfigs) expect(dependsOn(c).some((d) => /DefaultPolicy/.test(d))).toBe(true);
  });

  it('orders an event source mapping after the policy that lets its function read the queue', () => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'S', { env: { region: 'us-east-1' } });
    const fn = new LambdaFunction(stack, 'Fn', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler=1'),
    });
    fn.addEventSource(new SqsEventSource(new Queue(stack, 'Q')));
    // Act
    Aspects.of(stack).add(new GrantsBeforeChecks());
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, CfnResource>;
    // Assess
    expect(unorderedGrants(resources)).toEqual([]);
    const mapping = Object.values(resources).find((r) => r.Type === 'AWS::Lambda::EventSourceMapping')!;
    expect(dependsOn(mapping).some((d) => /DefaultPolicy/.test(d))).toBe(true);
  });
});

describe('the deploy creates at most 3 alarms at a time (PutMetricAlarm: 3 calls a second per Region)', () => {
  const burning = (): FleetInput => ({
    ...smallFleet(),
    slo: { objective: 99.9, burnAlarms: true },
    targets: Array.from({ length: 30 }, (_, i) => ({ name: `svc-${i}`, url: `https://svc-${i}.example.com/mcp` })),
  });

  it('in every stack: alarm, SLO burn (composites after their windows), probe and home stacks', () => {
    // Prepare
    const s = synth(burning());
    // Act
    const inFlight = [...s.templates].map(([name, t]) => ({
      name,
      alarms: Object.values(t.Resources).filter((r) => r.Type.startsWith('AWS::CloudWatch::') && r.Type.endsWith('Alarm')).length,
      inFlight: alarmsInFlight(t.Resources),
    }));
    // Assess
    for (const x of inFlight) expect(x.inFlight, x.name).toBeLessThanOrEqual(3);
    // Stacks that would create more than 3 at once unpaced.
    expect(inFlight.filter((x) => x.alarms > 3).length).toBeGreaterThan(3);
    expect(s.fleet.quotas.findings).toEqual([]);
  });

  it('deploys the home Region’s alarm stacks one after another, after the other stacks there that hold alarms', () => {
    // Prepare
    const s = synth(burning());
    // Act
    const heavy = [...s.templates.keys()].filter((n) => /-(alarms|slo-burn)/.test(n));
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      (s.after.get(from) ?? []).some((d) => d === to || (!seen.has(d) && (seen.add(d), reaches(d, to, seen))));
    // Assess: every two of them are ordered, so `cdk deploy --concurrency N` still runs one at a time.
    expect(heavy.length).toBeGreaterThan(10);
    for (const a of heavy) for (const b of heavy) if (a < b) expect(reaches(a, b) || reaches(b, a), `${a} / ${b}`).toBe(true);
    for (const a of heavy) {
      expect(reaches(a, 'McpCanary-home'), a).toBe(true);
      expect(reaches(a, 'McpCanary-probe-us-east-1'), a).toBe(true);
    }
  });

  it('paces at the figure the account was granted, and the synth check holds the stacks to it', () => {
    // Prepare
    const s = synth(burning(), { accountQuotas: { 'cloudwatch-put-metric-alarm': 10 } });
    // Act
    const most = Math.max(...[...s.templates.values()].map((t) => alarmsInFlight(t.Resources)));
    // Assess
    expect(s.fleet.runtime.alarmsInFlight).toBe(10);
    expect(most).toBeGreaterThan(3);
    expect(most).toBeLessThanOrEqual(10);
    expect(s.fleet.quotas.findings).toEqual([]);
  });

  it('prints how long creating the alarms takes at that pace', () => {
    // Prepare
    const { app, cleanup } = newTestApp();
    try {
      const fleet = new McpCanaryFleet(app, 'McpCanary', burning());
      // Act
      const home = fleet.runtime.deploy.find((d) => d.region === 'us-east-1')!;
      // Assess: 30 targets × (3 + 10 burn alarms) and the canary's own, 3 a second.
      expect(home.alarms).toBeGreaterThan(330);
      expect(home.seconds).toBeCloseTo(home.alarms / 3);
      Annotations.fromStack(fleet.home).hasInfo(
        '*',
        `mcp-canary: the first deploy creates ${home.alarms.toLocaleString('en-US')} CloudWatch alarms in us-east-1, at most 3 at a time (PutMetricAlarm allows 3 calls a second): at least 3 min of alarm creation, with the stacks that hold them deploying one after another.`,
      );
    } finally {
      cleanup();
    }
  });
});
