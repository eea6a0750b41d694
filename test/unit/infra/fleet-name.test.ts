/**
 * The fleet config's optional `name`: what the quota messages tell a user to change ("shorten the fleet
 * name", "split the fleet in two, each with its own name") must be a field the config has. It prefixes
 * every stack and physical name; without it the default app's McpCanary stays, so deployed stacks keep
 * their names.
 */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../functions/base/config/load/load.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { Quotas, SHORTER_NAMES, SPLIT_STACK } from '../../../infra/quotas/limits.ts';
import { newTestApp, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';

const alarmNames = (s: ReturnType<typeof synthFleet>) =>
  [...s.templates.values()].flatMap((t) =>
    Object.values(t.findResources('AWS::CloudWatch::Alarm')).map((a) => String(a.Properties.AlarmName)),
  );

function synthError(config: Parameters<typeof synthFleet>[0], options: Parameters<typeof synthFleet>[1] = {}): string {
  const { app, cleanup } = newTestApp();
  try {
    new McpCanaryFleet(app, 'McpCanary', config, options);
    app.synth();
  } catch (e) {
    return (e as Error).message;
  } finally {
    cleanup();
  }
  throw new Error('synth succeeded');
}

describe('the fleet name in the config', () => {
  it('prefixes every stack, alarm and resource name when set', () => {
    // Act
    const s = synthFleet(smallFleet({ name: 'payments-canary' }));
    // Assess
    const stacks = [...s.templates.keys()];
    expect(stacks).toContain('payments-canary-home');
    expect(stacks.every((n) => n.startsWith('payments-canary-'))).toBe(true);
    expect(alarmNames(s).every((n) => n.startsWith('payments-canary/'))).toBe(true);
    expect(JSON.stringify(s.json('payments-canary-home'))).not.toContain('McpCanary-');
  });

  it('keeps the default app’s names (McpCanary) when not set, so deployed stacks are not replaced', () => {
    const s = synthFleet(smallFleet());
    expect([...s.templates.keys()].every((n) => n.startsWith('McpCanary-'))).toBe(true);
    expect(alarmNames(s)).toContain('McpCanary/rates-prod/critical');
  });

  it.each([
    ['my fleet!', 'is "my fleet!": a fleet name is 1–32 letters, digits or "-", starting with a letter'],
    ['9lives', 'is "9lives": a fleet name is 1–32 letters'],
    ['a'.repeat(33), `is "${'a'.repeat(33)}": a fleet name is 1–32 letters`],
    ['', 'is "": a fleet name is 1–32 letters'],
  ])('refuses %j at synth, naming the field and the rule', (name, why) => {
    const message = synthError(smallFleet({ name }));
    expect(message).toContain(`mcp-canary fleet config: name ${why}`);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('accepts the longest allowed name, and the CLI reads the same field', () => {
    const name = `A${'b'.repeat(31)}`;
    expect(() => synthFleet(smallFleet({ name }))).not.toThrow();
    expect(parseFleet({ ...smallFleet(), name }, 'fleet.json').name).toBe(name);
  });

  it('refuses a construct name option that disagrees with the config, instead of silently picking one', () => {
    expect(synthError(smallFleet({ name: 'payments-canary' }), { name: 'Other' })).toContain(
      'name is "payments-canary", but the McpCanaryFleet name option is "Other": set one of them',
    );
    expect(() => synthFleet(smallFleet({ name: 'Same' }), { name: 'Same' })).not.toThrow();
  });

  it('is the field the quota fixes name', () => {
    for (const fix of [SPLIT_STACK, SHORTER_NAMES, Quotas.stackName.fix])
      expect(fix).toMatch(/`name` in the fleet config|each with its own `name`/);
  });
});
