import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { CanaryError } from '../../../../functions/base/common/errors.ts';

const ok = { homeRegion: 'eu-west-1', targets: [{ name: 'rates', url: 'https://rates.example/mcp' }] };

function errorOf(raw: unknown): string {
  try {
    parseFleet(raw, 'mcp-canary.config.ts');
  } catch (e) {
    expect(e).toBeInstanceOf(CanaryError);
    return (e as Error).message;
  }
  throw new Error('expected a config error');
}

describe('fleet config', () => {
  it('fills the documented defaults', () => {
    const f = parseFleet(ok);
    expect(f).toMatchObject({
      schedule: 'rate(1 minute)',
      failureThreshold: 3,
      namespace: 'McpCanary',
      notify: { pages: [], tickets: [], canaryOwner: [] },
    });
    expect(f.targets[0]).toMatchObject({
      revision: 'auto',
      timeoutMs: 10_000,
      budgetMs: 30_000,
      degradedMs: 5_000,
      retries: 0,
      headers: {},
      headerSecrets: {},
    });
  });

  it('accepts per-target schedule, regions and runbook', () => {
    const f = parseFleet({
      ...ok,
      targets: [{ ...ok.targets[0], schedule: 'rate(5 minutes)', probeRegions: ['us-east-1'], runbookUrl: 'https://wiki.example/rates' }],
    });
    expect(f.targets[0]).toMatchObject({ schedule: 'rate(5 minutes)', probeRegions: ['us-east-1'] });
  });

  it.each([
    [{ ...ok, homeRegion: 'europe' }, 'homeRegion is not an AWS region: got "europe". Use a region code from AWS\'s list, e.g. eu-west-1'],
    [{ ...ok, targets: [] }, 'targets needs at least one target'],
    [{ ...ok, targets: [{ name: 'has space', url: 'https://a.example' }] }, 'targets[0].name must be 1–64 letters'],
    [{ ...ok, targets: [ok.targets[0], ok.targets[0]] }, 'targets[1].name "rates" is already used by targets[0]'],
    [{ ...ok, schedule: 'every minute' }, 'schedule "every minute" is not an EventBridge Scheduler expression: write rate(value unit)'],
    [{ ...ok, probeRegions: ['eu-west-1'], quorum: 2 }, 'quorum (2) is more than the 1 probe region(s)'],
    [{ ...ok, notify: { pages: [{ url: 'http://pd.example' }] } }, 'notify.pages[0].url must be an https URL'],
    [
      { ...ok, targets: [{ ...ok.targets[0], headerSecrets: { Authorization: { vault: 'x' } } }] },
      'targets[0].headerSecrets.Authorization must be { secretsManager',
    ],
    [{ ...ok, targets: [{ ...ok.targets[0], timeoutMs: 40_000 }] }, 'targets[0].timeoutMs (40000) is longer than the run budget'],
    [
      { ...ok, targets: [{ ...ok.targets[0], tool: { name: 'x', expectJsonn: {} } }] },
      'targets[0].tool has unknown field(s) "expectJsonn"',
    ],
  ])('names the field and the fix: %#', (raw, message) => {
    expect(errorOf(raw)).toContain(message);
  });

  it('says a misspelt key once, as a misspelling, not also as its right spelling missing', () => {
    // Both keys have a message of their own for when they are left out; the misspelling explains it.
    expect(errorOf({ ...ok, slo: { objectve: 99 } })).toBe(
      'mcp-canary.config.ts: slo has unknown field(s) "objectve" (did you mean "objective"?)',
    );
    const pkj = { clientId: 'c', privateKeyJwt: { privateKy: { secretsManager: 'mcp-canary/k' } } };
    expect(errorOf({ ...ok, targets: [{ ...ok.targets[0], auth: { oauth: pkj } }] })).toBe(
      'mcp-canary.config.ts: targets[0].auth.oauth.privateKeyJwt has unknown field(s) "privateKy" (did you mean "privateKey"?)',
    );
  });

  it('says to drop the quotes from a number or true/false written as text', () => {
    expect(errorOf({ ...ok, failureThreshold: '3' })).toContain(
      'failureThreshold must be a number, got "3": write it without the quotes, 3',
    );
    expect(errorOf({ ...ok, targets: [{ ...ok.targets[0], tool: { name: 'x', allowUnsafe: 'false' } }] })).toContain(
      'targets[0].tool.allowUnsafe must be true or false, got "false": write it without the quotes, false',
    );
    // Text that is not the value itself gets no such advice: "10s" is not 10.
    expect(errorOf({ ...ok, targets: [{ ...ok.targets[0], timeoutMs: '10s' }] })).not.toContain('quotes');
  });

  it('lists the first ten problems of a fleet generated wrong, and how many more', () => {
    const targets = Array.from({ length: 40 }, (_, i) => ({ name: `t ${i}`, url: `https://t${i}.example/mcp` }));
    const message = errorOf({ ...ok, targets });
    expect(message.match(/must be 1–64 letters/g)).toHaveLength(10);
    expect(message).toMatch(/; and 30 more$/);
    expect(message.split('\n')).toHaveLength(1);
  });
});
