/**
 * Placement splits stacks on estimated bytes (infra/plan/template-size.ts), so every estimate must stay above
 * the bytes its resources really take in the synthesized template (as CloudFormation counts the file:
 * one-space indentation included). Checked on fleets built to be large: 64-character target names, URLs
 * long enough to crowd the 1,024-character descriptions, non-ASCII runbooks, ten regions, a 255-character
 * namespace, a 32-character fleet name, maintenance windows over every target.
 */
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { FleetNames } from '../../../infra/plan/names.ts';
import { BURN_BYTES_PER_TARGET } from '../../../infra/constructs/burn-alarms.ts';
import { MUTED_KINDS } from '../../../infra/plan/placement.ts';
import { mainProbeStackFixed, muteRuleBytes, scheduleBytes, targetAlarmsBytes } from '../../../infra/plan/template-size.ts';
import { synthFleet, type CfnTemplate } from '../../helpers/infra/synth.ts';

const TEN = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-west-2',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
];

/** A resource's bytes in a template file written with one-space indentation (resources sit two levels deep). */
function resourceBytes(logicalId: string, resource: unknown): number {
  const text = JSON.stringify(resource, null, 1);
  return Buffer.byteLength(text) + (text.split('\n').length - 1) * 2 + Buffer.byteLength(JSON.stringify(logicalId)) + 6;
}

function byType(t: CfnTemplate, type: string): Array<[string, Record<string, unknown>]> {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type) as Array<[string, Record<string, unknown>]>;
}

const FLEET = 'F'.repeat(31) + 'x';
const names = new FleetNames(FLEET);

function largeFleet(): FleetInput {
  return {
    homeRegion: 'us-east-1',
    probeRegions: TEN,
    namespace: `Canary/${'n'.repeat(248)}`,
    failureThreshold: 10,
    runbookUrl: 'https://runbooks.example.com/ünïcödé/情報/運用手順/mcp-canary?lang=日本語',
    maintenance: [{ name: 'w'.repeat(64), schedule: 'cron(0 2 * * SUN)', duration: '2 hours' }],
    targets: Array.from({ length: 60 }, (_, i) => ({
      name: `t${String(i).padStart(2, '0')}${'-long-name'.repeat(6)}`.slice(0, 64),
      url: `https://svc-${i}.example.com/${'mcp/'.repeat(i % 3 === 0 ? 120 : 20)}`,
      headerSecrets: { Authorization: { secretsManager: `mcp-canary/${'s'.repeat(100)}-${i}`, prefix: 'Bearer ' } },
      tool: { name: 'get_rate', arguments: { pair: 'EUR"USD"\\n', note: '引用 "quoted"' }, expectJson: { rate: 1.08 } },
      ...(i % 4 === 0 ? { schedule: 'rate(5 minutes)' } : {}),
    })),
  };
}

describe('template size estimates', () => {
  const config = largeFleet();
  const s = synthFleet(config, { name: FLEET });
  const plan = s.fleet.plan;

  it("hold each target's alarms above the bytes they take in its alarm stack", () => {
    for (const [id, targets] of plan.alarmStacks) {
      const t = s.json(`${FLEET}-alarms-${String(id).padStart(2, '0')}`);
      for (const target of targets) {
        const actual = byType(t, 'AWS::CloudWatch::Alarm')
          .filter(([, r]) => (r.Properties as { AlarmName: string }).AlarmName.startsWith(`${FLEET}/${target.name}/`))
          .reduce((n, [lid, r]) => n + resourceBytes(lid, r), 0);
        expect(actual).toBeGreaterThan(0);
        const estimate = targetAlarmsBytes(names, plan.namespace, plan.failureThreshold, target);
        expect(estimate, target.name).toBeGreaterThanOrEqual(actual);
        expect(estimate, `${target.name} (not wildly over)`).toBeLessThan(actual * 1.5);
      }
    }
  });

  it('hold each schedule above its bytes, and the main probe stack’s fixed part above the rest of it', () => {
    for (const region of plan.regions) {
      const t = s.json(`${FLEET}-probe-${region.region}`);
      const schedules = new Map(
        byType(t, 'AWS::Scheduler::Schedule').map(([lid, r]) => [(r.Properties as { Name: string }).Name, resourceBytes(lid, r)]),
      );
      for (const p of region.scheduleStacks[0]!) {
        const name = names.schedule(p.rateSlug, p.index);
        expect(scheduleBytes(name, p.description, p.input), name).toBeGreaterThanOrEqual(schedules.get(name)!);
      }
      const rest = Object.entries(t.Resources).filter(([, r]) => r.Type !== 'AWS::Scheduler::Schedule');
      const fixed = mainProbeStackFixed(region.rates.length, config.notify?.canaryOwner?.length ?? 0);
      expect(rest.length).toBeLessThanOrEqual(fixed.resources);
      expect(rest.reduce((n, [lid, r]) => n + resourceBytes(lid, r), 0)).toBeLessThanOrEqual(fixed.bytes);
    }
  });

  it("hold each target's SLO burn alarms (eight windows with the paging expression, two composites) below their size per target", () => {
    const burn = synthFleet(
      { ...config, targets: config.targets.slice(0, 6), slo: { objective: 99.9, burnAlarms: true } },
      { name: FLEET },
    );
    const t = burn.json(`${FLEET}-slo-burn`);
    for (const target of config.targets.slice(0, 6)) {
      const actual = Object.entries(t.Resources)
        .filter(([, r]) => String((r.Properties as { AlarmName?: string }).AlarmName).startsWith(`${FLEET}/${target.name}/`))
        .reduce((n, [lid, r]) => n + resourceBytes(lid, r), 0);
      expect(actual).toBeGreaterThan(0);
      expect(actual, target.name).toBeLessThanOrEqual(BURN_BYTES_PER_TARGET);
    }
  });

  it('hold each mute rule above its bytes', () => {
    const rules = [...plan.muteRuleStacks.values()].flat();
    expect(rules.length).toBeGreaterThan(1);
    expect(rules.every((r) => r.alarmNames.every((a) => MUTED_KINDS.some((k) => a.endsWith(`/${k}`))))).toBe(true);
    const t = s.json(`${FLEET}-maintenance`);
    const actual = new Map(
      byType(t, 'AWS::CloudWatch::AlarmMuteRule').map(([lid, r]) => [(r.Properties as { Name: string }).Name, resourceBytes(lid, r)]),
    );
    for (const r of plan.muteRuleStacks.get(0)!)
      expect(muteRuleBytes(r.ruleName, r.description, r.alarmNames), r.ruleName).toBeGreaterThanOrEqual(actual.get(r.ruleName)!);
  });
});
