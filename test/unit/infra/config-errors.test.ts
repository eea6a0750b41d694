/**
 * Invalid config fails `cdk synth` (constructing the fleet) with one message that names the target,
 * by index and name, and the field, and says what to do. Secrets in a refused config are never echoed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { readConfigFile } from '../../../functions/base/config/load/load.ts';
import { checkFleet } from '../../../infra/plan/checks.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { BULLETS } from '../../helpers/config/bullets.ts';
import { newTestApp, smallFleet } from '../../helpers/infra/synth.ts';

const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-config-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function synthError(config: FleetInput, name?: string): Error {
  const { app, cleanup } = newTestApp();
  try {
    new McpCanaryFleet(app, name ?? 'McpCanary', config);
    app.synth();
  } catch (e) {
    return e as Error;
  } finally {
    cleanup();
  }
  throw new Error('synth succeeded');
}

const base = smallFleet();
const withTarget = (i: number, patch: Record<string, unknown>): FleetInput => ({
  ...base,
  targets: base.targets.map((t, j) => (j === i ? { ...t, ...patch } : t)),
});

describe('cdk synth refuses a fleet it cannot deploy', () => {
  it.each([
    [
      'a reference to a value no earlier step makes',
      [
        { id: 'find', kind: 'tools/call', name: 'find_order' },
        { kind: 'resources/read', uri: '${steps.find.uri}' },
      ],
      'targets[1] ("docs").flow[1].uri refers to ${steps.find.uri}, but step "find" extracts no value "uri"',
    ],
    [
      'a duplicate step id',
      [
        { id: 'a', kind: 'prompts/list' },
        { id: 'a', kind: 'resources/list' },
      ],
      'targets[1] ("docs").flow[1].id "a" is already the id of step 1',
    ],
    [
      "a budget that cannot fit the steps' timeouts",
      [{ kind: 'prompts/list' }, { kind: 'resources/list' }, { kind: 'prompts/list' }, { kind: 'resources/list' }],
      'targets[1] ("docs").budgetMs (30000) cannot fit the flow\'s 4 steps at timeoutMs 10000 each (40000 ms)',
    ],
  ])('refuses a flow with %s, in one line', (_what, flow, message) => {
    const e = synthError(withTarget(1, { tool: undefined, flow }));
    expect(e.name).toBe('CanaryError');
    expect(e.message).toContain(message);
    expect(e.message.split('\n')).toHaveLength(1);
  });

  it('synthesizes a fleet whose target runs a flow with a task', () => {
    const { app, cleanup } = newTestApp();
    try {
      const flow = [
        { id: 'find', kind: 'tools/call', name: 'find_order', task: true, extract: { id: { path: 'order.id' } } },
        { kind: 'prompts/get', name: 'brief', arguments: { topic: '${steps.find.id}' } },
      ];
      new McpCanaryFleet(app, 'McpCanary', withTarget(1, { tool: undefined, flow }));
      expect(() => app.synth()).not.toThrow();
    } finally {
      cleanup();
    }
  });

  it('names the target and the field of a schema error', () => {
    const e = synthError(withTarget(1, { url: 'docs.example.com/mcp' }));
    expect(e.name).toBe('CanaryError');
    expect(e.message).toContain('targets[1] ("docs").url is not an http(s) URL');
  });

  it('refuses static header values, which would land in the template, and points to headerSecrets', () => {
    const e = synthError(withTarget(0, { headers: { Authorization: 'Bearer sk-live-1234567890' } }));
    expect(e.message).toContain('targets[0] ("rates-prod").headers.Authorization is a static header value');
    expect(e.message).toContain('headerSecrets');
    expect(e.message).not.toContain('sk-live-1234567890');
  });

  it('refuses an OAuth secret only the CLI can read ({ env } or { file }), and grants the run the stored ones', () => {
    const oauth = (clientSecret: unknown) => ({
      auth: { oauth: { clientId: 'canary', clientSecret, tokenUrl: 'https://auth.example.com/token' } },
    });
    const e = synthError(withTarget(1, oauth({ env: 'DOCS_SECRET' })));
    expect(e.message).toContain('targets[1] ("docs").auth.oauth.clientSecret is an { env } or { file } reference');
    const plan = planFleet(withTarget(1, oauth({ secretsManager: 'mcp-canary/docs-oauth' })));
    expect(plan.targets[1]!.headerSecrets).toContainEqual({ secretsManager: 'mcp-canary/docs-oauth' });
  });

  it('refuses a budget whose function timeout would not fit under the schedule period', () => {
    const e = synthError(withTarget(1, { budgetMs: 50_000 }));
    expect(e.message).toMatch(
      /targets\[1\] \("docs"\)\.budgetMs \(50000 ms\) needs a 63 s function timeout, which is not shorter than its schedule rate\(1 minute\)/,
    );
  });

  it('refuses more probe regions than one alarm can read', () => {
    const regions = [
      'us-east-1',
      'us-east-2',
      'us-west-1',
      'us-west-2',
      'eu-west-1',
      'eu-west-2',
      'eu-west-3',
      'eu-central-1',
      'eu-north-1',
      'ap-south-1',
      'ap-southeast-1',
    ];
    const e = synthError(withTarget(2, { probeRegions: regions }));
    expect(e.message).toContain('targets[2] ("slow-one").probeRegions lists 11 regions');
  });

  it('refuses a fleet quorum that a target with fewer regions could never reach', () => {
    const e = synthError({ ...base, quorum: 2 });
    expect(e.message).toContain('targets[2] ("slow-one").probeRegions has 1 region(s) but the fleet quorum is 2');
  });

  it('refuses N runs in a row that span more than the seven days an alarm with an hour-long period can evaluate', () => {
    const e = synthError({
      ...base,
      failureThreshold: 10,
      targets: [{ name: 'daily', url: 'https://h.example.com/mcp', schedule: 'rate(1 day)' }],
    });
    expect(e.message).toContain(
      'targets[0] ("daily").schedule rate(1 day) × 10 periods (the dead-man alarm\'s, for failureThreshold 10) spans 10 day(s), more than the 7 day(s)',
    );
  });

  it('bounds the dead-man window by the periods the alarm evaluates, M = max(N, 3), and accepts a window exactly at the limit', () => {
    // Prepare: 7 runs of a daily canary is exactly CloudWatch's seven days; 3 (the dead-man's floor) of 2 days is six
    const daily = (failureThreshold: number, schedule: string) => ({
      ...base,
      failureThreshold,
      targets: [{ name: 'daily', url: 'https://h.example.com/mcp', schedule }],
    });
    // Act + Assess: what synth accepts is what the alarm evaluates
    for (const [n, schedule] of [
      [7, 'rate(1 day)'],
      [2, 'rate(2 days)'],
    ] as const) {
      const plan = planFleet(daily(n, schedule));
      const { app, cleanup } = newTestApp();
      try {
        const fleet = new McpCanaryFleet(app, 'McpCanary', daily(n, schedule));
        const alarms = fleet.alarmStacks.flatMap((s) => Object.values(Template.fromStack(s).findResources('AWS::CloudWatch::Alarm')));
        const deadMan = alarms.find((a) => String(a.Properties.AlarmName).endsWith('/dead-man'))!;
        expect(deadMan.Properties.EvaluationPeriods * deadMan.Properties.Period).toBeLessThanOrEqual(7 * 86_400);
        expect(deadMan.Properties.EvaluationPeriods).toBe(Math.max(n, 3));
      } finally {
        cleanup();
      }
      expect(plan.targets[0]!.periodSeconds * Math.max(n, 3)).toBeLessThanOrEqual(7 * 86_400);
    }
    expect(() => planFleet(daily(4, 'rate(2 days)'))).toThrow(/× 4 periods .* spans 8 day\(s\)/);
  });

  it('writes one period one way, so two spellings of it make one run function, not a clash', () => {
    const plan = planFleet({
      ...base,
      targets: [
        { name: 'a', url: 'https://a.example.com/mcp', schedule: 'rate(60 minutes)' },
        { name: 'b', url: 'https://b.example.com/mcp', schedule: 'rate(1 hour)' },
      ],
    });
    expect(plan.regions[0]!.rates.map((r) => [r.schedule, r.rateSlug])).toEqual([['rate(1 hour)', '1h']]);
    const { app, cleanup } = newTestApp();
    try {
      expect(
        () =>
          new McpCanaryFleet(app, 'McpCanary', {
            ...base,
            targets: [
              { name: 'a', url: 'https://a.example.com/mcp', schedule: 'rate(60 minutes)' },
              { name: 'b', url: 'https://b.example.com/mcp', schedule: 'rate(1 hour)' },
            ],
          }),
      ).not.toThrow();
    } finally {
      cleanup();
    }
  });

  it('refuses a target too large for a schedule payload', () => {
    const e = synthError(withTarget(1, { tool: { name: 'search', arguments: { q: 'x'.repeat(7000) } } }));
    expect(e.message).toMatch(/targets\[1\] \("docs"\)\.payload is \d+ bytes as a schedule payload/);
  });

  it('refuses a fleet name that cannot prefix every resource name', () => {
    const e = synthError(base, 'my fleet!');
    expect(e.message).toContain('McpCanaryFleet name "my fleet!" must be 1–32 letters');
  });

  it('the example fleet references each credential by ARN in its home region, under the prefix, as the READMEs advise', async () => {
    const { default: example } = await import('../../../mcp-canary.config.ts');
    const refs = example.targets.flatMap((t) => Object.values(t.headerSecrets ?? {}));
    expect(refs.length).toBeGreaterThan(1);
    for (const ref of refs) {
      const id = 'ssmParameter' in ref ? ref.ssmParameter : ref.secretsManager;
      const arn = new RegExp(`^arn:aws:(ssm|secretsmanager):${example.homeRegion}:\\d{12}:(parameter/|secret:)mcp-canary/`);
      expect(id).toMatch(arn);
    }
    expect(refs.some((r) => 'ssmParameter' in r)).toBe(true);
  });

  it('accepts the example fleet', async () => {
    const { default: example } = await import('../../../mcp-canary.config.ts');
    const { app, cleanup } = newTestApp();
    try {
      expect(() => new McpCanaryFleet(app, 'McpCanary', example)).not.toThrow();
    } finally {
      cleanup();
    }
  });
});

describe("the CDK app refuses what synth used to accept (issue 16's list)", () => {
  // The app's own path: MCP_CANARY_CONFIG names a file, read by readConfigFile, built by McpCanaryFleet.
  it.each(BULLETS.map((b) => [b.name, b] as const))('%s', async (_, bullet) => {
    const file = join(dir, `${bullet.name.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(bullet.config));
    const config = (await readConfigFile(file, `MCP_CANARY_CONFIG=${file}`)) as FleetInput;
    const e = synthError(config);
    expect(e.name).toBe('CanaryError');
    expect(e.message.split('\n')).toHaveLength(1);
    let from = 0;
    for (const fragment of bullet.says) {
      const at = e.message.indexOf(fragment, from);
      expect(at, `${fragment}\n  in: ${e.message}`).toBeGreaterThanOrEqual(0);
      from = at + fragment.length;
    }
  });
});

describe('"in the past" for a maintenance window is judged at synth', () => {
  const fleet = (schedule: string, timezone?: string): FleetInput => ({
    ...base,
    maintenance: [{ name: 'release', schedule, duration: '2 hours', ...(timezone ? { timezone } : {}) }],
  });

  it('accepts a window that has started but not ended: it still mutes until its end', () => {
    const now = new Date('2027-03-31T09:00:00Z');
    expect(() => checkFleet(fleet('at(2027-03-31T08:00)'), now)).not.toThrow();
    expect(() => checkFleet(fleet('at(2027-03-31T07:00)'), now)).toThrow(/ended at 2027-03-31 09:00 UTC, before this synth/);
  });

  it("reads the window's time zone: 10:00 in Tokyo ended before 09:00 UTC", () => {
    const now = new Date('2027-03-31T09:00:00Z');
    // 10:00 JST is 01:00 UTC; two hours later it ended at 03:00 UTC.
    expect(() => checkFleet(fleet('at(2027-03-31T10:00)', 'Asia/Tokyo'), now)).toThrow(/\(Asia\/Tokyo\) ended at 2027-03-31 03:00 UTC/);
    // 08:00 in New York (EDT, UTC-4) is 12:00 UTC: still to come.
    expect(() => checkFleet(fleet('at(2027-03-31T08:00)', 'America/New_York'), now)).not.toThrow();
  });

  it('never calls a recurring (cron) window past', () => {
    expect(() => checkFleet(fleet('cron(0 2 * * SUN)'), new Date('2199-01-01T00:00:00Z'))).not.toThrow();
  });
});
