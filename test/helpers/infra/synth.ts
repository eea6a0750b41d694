/**
 * Synthesizes a fleet the way the tests need it: bundling skipped (one test bundles for real), the
 * cloud assembly in a temp dir that is removed afterwards, every stack's template at hand by name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { McpCanaryFleet, type McpCanaryFleetOptions } from '../../../infra/fleet.ts';

export interface Synthesized {
  readonly app: App;
  readonly fleet: McpCanaryFleet;
  /** By stack name, e.g. `McpCanary-probe-eu-west-1`. */
  readonly templates: ReadonlyMap<string, Template>;
  template(stackName: string): Template;
  /** Raw template JSON by stack name. */
  json(stackName: string): CfnTemplate;
}

export interface CfnTemplate {
  readonly Resources: Record<
    string,
    { readonly Type: string; readonly Properties?: Record<string, unknown>; readonly Metadata?: Record<string, unknown> }
  >;
  readonly Outputs?: Record<string, unknown>;
}

export function newTestApp(): { app: App; cleanup(): void } {
  const outdir = mkdtempSync(join(tmpdir(), 'mcp-canary-synth-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  return { app, cleanup: () => rmSync(outdir, { recursive: true, force: true }) };
}

export function synthFleet(config: FleetInput, options: McpCanaryFleetOptions = {}, id = 'McpCanary'): Synthesized {
  const { app, cleanup } = newTestApp();
  try {
    const fleet = new McpCanaryFleet(app, id, config, options);
    const stacks = fleet.node.findAll().filter((c): c is Stack => Stack.isStack(c));
    const templates = new Map(stacks.map((s) => [s.stackName, Template.fromStack(s)]));
    const get = (name: string) => {
      const t = templates.get(name);
      if (!t) throw new Error(`no stack ${name}; have ${[...templates.keys()].join(', ')}`);
      return t;
    };
    return { app, fleet, templates, template: get, json: (name) => get(name).toJSON() as CfnTemplate };
  } finally {
    cleanup();
  }
}

/** Resources of a type in a template, by logical id. */
export function resourcesOf(t: CfnTemplate, type: string): Array<[string, Record<string, unknown>]> {
  return Object.entries(t.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id, r]) => [id, r.Properties ?? {}]);
}

/** A small fleet in the shape of the example, with knobs tests can turn. */
export function smallFleet(overrides: Partial<FleetInput> = {}): FleetInput {
  return {
    homeRegion: 'us-east-1',
    probeRegions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
    runbookUrl: 'https://runbooks.example.com/mcp-canary',
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/abc/enqueue' }],
      tickets: [{ email: 'tickets@example.com' }],
      canaryOwner: [{ email: 'owner@example.com' }],
      briefs: [
        { sqsQueueArn: 'arn:aws:sqs:us-east-1:111122223333:briefs' },
        { lambdaArn: 'arn:aws:lambda:us-east-1:111122223333:function:chat-relay' },
      ],
    },
    targets: [
      {
        name: 'rates-prod',
        url: 'https://rates.example.com/mcp',
        headerSecrets: { Authorization: { secretsManager: 'mcp-canary/rates', prefix: 'Bearer ' } },
        tool: { name: 'get_rate', arguments: { pair: 'EURUSD' } },
      },
      { name: 'docs', url: 'https://docs.example.com/mcp', headerSecrets: { 'X-Api-Key': { ssmParameter: '/mcp-canary/docs/key' } } },
      {
        name: 'slow-one',
        url: 'https://slow.example.com/mcp',
        schedule: 'rate(5 minutes)',
        probeRegions: ['eu-west-1'],
        budgetMs: 120_000,
        timeoutMs: 60_000,
      },
    ],
    ...overrides,
  };
}
