/**
 * Invalid config fails `cdk synth` (constructing the fleet) with one message that names the target,
 * by index and name, and the field, and says what to do. Secrets in a refused config are never echoed.
 */
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../functions/config/fleet.ts';
import { McpCanaryFleet } from '../../infra/fleet.ts';
import { planFleet } from '../../infra/plan.ts';
import { newTestApp, smallFleet } from './support/synth.ts';

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

  it('refuses N runs in a row that span more than the one day an alarm can evaluate', () => {
    const e = synthError({
      ...base,
      failureThreshold: 10,
      targets: [{ name: 'hourly', url: 'https://h.example.com/mcp', schedule: 'rate(3 hours)' }],
    });
    expect(e.message).toContain('targets[0] ("hourly").schedule rate(3 hours) × failureThreshold 10 spans more than one day');
  });

  it('refuses a target too large for a schedule payload', () => {
    const e = synthError(withTarget(1, { tool: { name: 'search', arguments: { q: 'x'.repeat(7000) } } }));
    expect(e.message).toMatch(/targets\[1\] \("docs"\)\.payload is \d+ bytes as a schedule payload/);
  });

  it('refuses a fleet name that cannot prefix every resource name', () => {
    const e = synthError(base, 'my fleet!');
    expect(e.message).toContain('McpCanaryFleet name "my fleet!" must be 1–32 letters');
  });

  it('accepts the example fleet', async () => {
    const { default: example } = await import('../../mcp-canary.config.ts');
    const { app, cleanup } = newTestApp();
    try {
      expect(() => new McpCanaryFleet(app, 'McpCanary', example)).not.toThrow();
    } finally {
      cleanup();
    }
  });
});
