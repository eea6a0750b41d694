/**
 * The plan: which targets share a schedule, how payloads are packed, which stack holds which alarms.
 * Pure, so the rules are shown here on their own; the templates follow the plan (see the other tests).
 */
import { describe, expect, it } from 'vitest';
import { Target } from '../../../functions/base/config/schema/target.ts';
import { lambdaTimeoutSeconds } from '../../../functions/base/config/schema/budget.ts';
import { fnv1a } from '../../../infra/plan/hash.ts';
import {
  MAX_RATES_PER_REGION,
  MAX_TARGETS_PER_RUN,
  SCHEDULE_PAYLOAD_BUDGET_BYTES,
  byteLength,
  planFleet,
} from '../../../infra/plan/plan.ts';
import { smallFleet } from '../../helpers/infra/synth.ts';

function manyTargets(n: number, extra: Record<string, unknown> = {}) {
  return Array.from({ length: n }, (_, i) => ({
    name: `t${String(i).padStart(4, '0')}`,
    url: `https://mcp${i}.example.com/mcp`,
    headerSecrets: { Authorization: { secretsManager: `mcp-canary/t${i}`, prefix: 'Bearer ' } },
    tool: { name: 'ping', arguments: { echo: 'x'.repeat(40) } },
    ...extra,
  }));
}

describe('planFleet', () => {
  it('groups targets sharing a rate in a region into one schedule, and a lone rate into its own', () => {
    // Prepare
    const plan = planFleet(smallFleet());
    // Assess
    const eu = plan.regions.find((r) => r.region === 'eu-west-1')!;
    expect(eu.rates.map((r) => [r.schedule, r.schedules.map((s) => s.targets)])).toEqual([
      ['rate(1 minute)', [['docs', 'rates-prod']]],
      ['rate(5 minutes)', [['slow-one']]],
    ]);
    const us = plan.regions.find((r) => r.region === 'us-east-1')!;
    expect(us.rates.map((r) => r.schedule)).toEqual(['rate(1 minute)']);
  });

  it('puts exactly the Target input into the payload: references, no fleet-only fields, valid for the run', () => {
    const plan = planFleet(smallFleet());
    const eu = plan.regions.find((r) => r.region === 'eu-west-1')!;
    const slow = JSON.parse(eu.rates[1]!.schedules[0]!.input) as { targets: Record<string, unknown>[] };
    expect(slow.targets).toEqual([{ name: 'slow-one', url: 'https://slow.example.com/mcp', budgetMs: 120_000, timeoutMs: 60_000 }]);
    const fast = JSON.parse(eu.rates[0]!.schedules[0]!.input) as { targets: unknown[] };
    for (const t of fast.targets) expect(Target.safeParse(t).success).toBe(true);
    expect(eu.rates[0]!.schedules[0]!.input).toContain('"secretsManager":"mcp-canary/rates"');
  });

  it('packs a big group into payloads within the byte budget and the per-run cap, losing no target', () => {
    const plan = planFleet({ homeRegion: 'eu-west-1', targets: manyTargets(300) });
    const schedules = plan.regions[0]!.rates[0]!.schedules;
    expect(schedules.length).toBeGreaterThan(300 / MAX_TARGETS_PER_RUN - 1);
    for (const s of schedules) {
      expect(byteLength(s.input)).toBe(s.inputBytes);
      expect(s.inputBytes).toBeLessThanOrEqual(SCHEDULE_PAYLOAD_BUDGET_BYTES);
      expect(s.targets.length).toBeLessThanOrEqual(MAX_TARGETS_PER_RUN);
    }
    expect(schedules.flatMap((s) => s.targets).sort()).toEqual(manyTargets(300).map((t) => t.name));
  });

  it('cuts a payload by bytes before the cap when targets are large', () => {
    const plan = planFleet({
      homeRegion: 'eu-west-1',
      targets: manyTargets(30, { tool: { name: 'ping', arguments: { echo: 'y'.repeat(1500) } } }),
    });
    const schedules = plan.regions[0]!.rates[0]!.schedules;
    expect(schedules.every((s) => s.targets.length < MAX_TARGETS_PER_RUN)).toBe(true);
    expect(schedules.every((s) => s.inputBytes <= SCHEDULE_PAYLOAD_BUDGET_BYTES)).toBe(true);
  });

  it('gives each rate a function timeout above its slowest budget and below its period', () => {
    const plan = planFleet(smallFleet());
    for (const region of plan.regions) {
      for (const rate of region.rates) {
        expect(rate.timeoutSeconds).toBe(lambdaTimeoutSeconds(rate.maxBudgetMs));
        expect(rate.timeoutSeconds * 1000).toBeGreaterThan(rate.maxBudgetMs);
        expect(rate.timeoutSeconds).toBeLessThan(rate.periodSeconds);
      }
    }
  });

  it('defaults quorum per target to more than half of its own regions', () => {
    const plan = planFleet(smallFleet());
    expect(Object.fromEntries(plan.targets.map((t) => [t.name, t.quorum]))).toEqual({ 'rates-prod': 2, docs: 2, 'slow-one': 1 });
    expect(planFleet(smallFleet({ quorum: 3, targets: smallFleet().targets.slice(0, 2) })).targets.map((t) => t.quorum)).toEqual([3, 3]);
  });

  it('grants each region the secret scopes of the targets probed from it, once however many secrets', () => {
    const plan = planFleet(smallFleet());
    const eu = plan.regions.find((r) => r.region === 'eu-west-1')!;
    expect(eu.secretScopes).toEqual([{ service: 'secretsmanager' }, { service: 'ssm' }]);
    const many = planFleet({ homeRegion: 'eu-west-1', targets: manyTargets(300) });
    expect(many.regions[0]!.secretScopes).toEqual([{ service: 'secretsmanager' }]);
    const other = planFleet(smallFleet({ targets: [{ name: 'open', url: 'https://open.example.com/mcp' }] }));
    expect(other.regions.every((r) => r.secretScopes.length === 0)).toBe(true);
  });

  it('keeps a target in the same alarm stack whatever other targets come and go', () => {
    const before = planFleet({ homeRegion: 'eu-west-1', targets: manyTargets(50) });
    const after = planFleet({
      homeRegion: 'eu-west-1',
      targets: [...manyTargets(80).slice(25), { name: 'aaa-new', url: 'https://new.example.com/mcp' }],
    });
    const stackOf = (p: typeof before) => new Map(p.targets.map((t) => [t.name, t.alarmStack]));
    const a = stackOf(before);
    const b = stackOf(after);
    for (const [name, stack] of a) if (b.has(name)) expect(b.get(name)).toBe(stack);
    expect(fnv1a('rates-prod')).toBe(fnv1a('rates-prod'));
    expect(new Set(a.values()).size).toBeGreaterThan(1);
  });

  it('spills schedules past what the main stack holds into overflow stacks, by size', () => {
    // ~1.2 KB per target: five to a payload, 120 schedules, more than one stack's 800 KB.
    const plan = planFleet({
      homeRegion: 'eu-west-1',
      targets: manyTargets(600, { tool: { name: 'ping', arguments: { echo: 'z'.repeat(1100) } } }),
    });
    const region = plan.regions[0]!;
    expect(region.scheduleStacks.length).toBeGreaterThan(1);
    expect(region.scheduleStacks[0]!.every((s) => s.stack === 0)).toBe(true);
    for (const stack of region.scheduleStacks.slice(1)) expect(new Set(stack.map((s) => s.stack)).size).toBe(1);
    expect(
      region.scheduleStacks
        .flat()
        .map((s) => s.index)
        .sort((a, b) => a - b),
    ).toEqual(region.rates[0]!.schedules.map((s) => s.index));
  });

  it('merges spellings of one period into one rate, and refuses more distinct rates than a region holds', () => {
    const same = planFleet({
      homeRegion: 'eu-west-1',
      targets: [
        { name: 'a', url: 'https://a.example.com/mcp', schedule: 'rate(60 minutes)' },
        { name: 'b', url: 'https://b.example.com/mcp', schedule: 'rate(1 hour)' },
      ],
    });
    expect(same.regions[0]!.rates.map((r) => [r.rateSlug, r.schedules.flatMap((s) => s.targets)])).toEqual([['1h', ['a', 'b']]]);
    const targets = Array.from({ length: MAX_RATES_PER_REGION + 1 }, (_, i) => ({
      name: `r${i}`,
      url: `https://r${i}.example.com/mcp`,
      schedule: `rate(${i + 2} minutes)`,
    }));
    expect(() => planFleet({ homeRegion: 'eu-west-1', targets })).toThrow(
      `targets[${MAX_RATES_PER_REGION}] ("r${MAX_RATES_PER_REGION}").schedule rate(${MAX_RATES_PER_REGION + 2} minutes) would be distinct schedule number ${MAX_RATES_PER_REGION + 1} probed from eu-west-1`,
    );
  });
});
