/**
 * A gateway's backends as synthesized: each backend has the three alarms of a target, reading its own
 * `Target=<gateway>/<backend>` Verdict metric, its page naming the backend and the gateway; the gateway
 * keeps its own; the schedule carries the gateway once (its run judges the backends); a maintenance
 * window of the gateway mutes its backends; the plan counts them where quotas count alarms.
 */
import { describe, expect, it } from 'vitest';
import { AlarmKind, parseAlarmName } from '../../../functions/base/common/alarm-words.ts';
import { verdictValue } from '../../../functions/base/common/run-record.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { alarmsOf } from '../../helpers/infra/cfn.ts';
import { evaluateExpression } from '../../helpers/infra/cloudwatch-alarm.ts';
import { smallFleet, synthFleet } from '../../helpers/infra/synth.ts';

const gateway = {
  name: 'gw',
  url: 'https://gateway.example.com/mcp',
  timeoutMs: 2_000,
  backends: [
    { name: 'github', tool: { name: 'get_me' } },
    { name: 'docs', prefix: 'docs-', tool: { name: 'search', arguments: { q: 'status' } } },
  ],
};
const config = smallFleet({ targets: [...smallFleet().targets, gateway] });

describe('a gateway in the fleet', () => {
  const synth = synthFleet(config);
  const alarms = [...synth.templates]
    .filter(([name]) => name.startsWith('McpCanary-alarms-'))
    .flatMap(([, t]) => alarmsOf(t.toJSON() as never));
  const byName = new Map(alarms.map((a) => [a.AlarmName, a]));

  it('gives each backend the three alarms of a target, on its own Verdict metric, and the gateway its own', () => {
    for (const name of ['gw', 'gw/github', 'gw/docs'])
      for (const kind of ['critical', 'warning', 'dead-man']) {
        const a = byName.get(`McpCanary/${name}/${kind}`);
        expect(a, `${name} ${kind}`).toBeDefined();
        // Every Target dimension it reads, whether in metric math or a plain metric.
        const targets = [...JSON.stringify(a).matchAll(/\{"Name":"Target","Value":"([^"]*)"\}/g)].map((m) => m[1]);
        expect(targets.length).toBeGreaterThan(0);
        expect(new Set(targets)).toEqual(new Set([name]));
      }
    expect(alarms).toHaveLength(3 * (config.targets.length + 2));
  });

  it("tickets a backend for what it did, not for the gateway's outage that left it unjudged", () => {
    const ticketsOf = (name: string) => {
      const e = byName.get(`McpCanary/${name}/warning`)!.Metrics!.find((m) => m.Expression !== undefined && m.ReturnData !== false)!;
      // One period: each run's value summed (Sum) and counted (SampleCount), as CloudWatch aggregates them.
      return (runs: readonly ('healthy' | 'degraded' | 'failed' | 'inconclusive' | 'warned')[]) => {
        const values = runs.map((o) =>
          o === 'warned'
            ? verdictValue({ outcome: 'healthy', warnings: [{ kind: 'certificate_expiry', detail: 'x' }] })
            : verdictValue({ outcome: o, warnings: [] }),
        );
        const data = new Map([
          ['failing', new Map([[0, values.reduce((a, b) => a + b, 0)]])],
          ['reports', new Map([[0, values.length]])],
        ]);
        return evaluateExpression(e.Expression!, data).get(0);
      };
    };
    const backend = ticketsOf('gw/github');
    // The gateway down in every region: its backends' runs are inconclusive (gateway_down), and no ticket.
    expect(backend(['inconclusive', 'inconclusive', 'inconclusive'])).toBe(0);
    expect(backend(['inconclusive', 'inconclusive', 'degraded'])).toBe(1);
    expect(backend(['failed', 'inconclusive', 'warned'])).toBe(2);
    expect(backend(['inconclusive'])).toBeUndefined(); // two regions not heard from: not yet known
    expect(backend(['degraded'])).toBe(1); // known at once
    // A point of many runs (a wider period, or a replay): the ticket place read exactly.
    const many = [
      ...Array(5).fill('failed'),
      ...Array(300).fill('inconclusive'),
      ...Array(7).fill('degraded'),
      ...Array(288).fill('healthy'),
    ];
    expect(backend(many)).toBe(12);
    // The gateway's own ticket alarm is a target's: a region that cannot judge it is a ticket.
    expect(ticketsOf('gw')(['inconclusive', 'healthy', 'healthy'])).toBeGreaterThan(0);
    expect(ticketsOf('rates-prod')(['inconclusive', 'healthy', 'healthy'])).toBeGreaterThan(0);
  });

  it("names the backend and the gateway in the backend's page, and the endpoint to check", () => {
    const page = byName.get('McpCanary/gw/github/critical')!.AlarmDescription!;
    expect(page).toContain('gw/github (backend "github" of gateway "gw") has failed');
    expect(page).toContain('Endpoint: https://gateway.example.com/mcp');
    expect(byName.get('McpCanary/gw/critical')!.AlarmDescription).toMatch(/^gw has failed/);
  });

  it('reads a backend alarm name back as its target, and a target alarm as before', () => {
    expect(parseAlarmName('McpCanary', 'McpCanary/gw/github/critical')).toEqual({ target: 'gw/github', kind: AlarmKind.critical });
    expect(parseAlarmName('McpCanary', 'McpCanary/gw/warning')).toEqual({ target: 'gw', kind: AlarmKind.warning });
    expect(parseAlarmName('McpCanary', 'McpCanary/canary/credentials')).toBeNull();
    expect(parseAlarmName('McpCanary', 'McpCanary//github/critical')).toBeNull();
  });

  it('schedules the gateway once, its backends inside its payload, and alarms every backend', () => {
    const plan = planFleet(config);
    expect(plan.targets.map((t) => t.name)).toEqual(['rates-prod', 'docs', 'slow-one', 'gw']);
    expect(plan.alarmed.map((t) => t.name)).toEqual(['rates-prod', 'docs', 'slow-one', 'gw', 'gw/github', 'gw/docs']);
    expect(plan.alarmed.filter((t) => t.gateway).map((t) => t.gateway)).toEqual(['gw', 'gw']);
    const scheduled = plan.regions.flatMap((r) => r.rates.flatMap((g) => g.schedules.flatMap((s) => s.targets)));
    expect(scheduled.filter((n) => n.startsWith('gw'))).toEqual(['gw', 'gw', 'gw']);
    const input = plan.regions[0]!.rates[0]!.schedules.find((s) => s.targets.includes('gw'))!.input;
    expect(JSON.parse(input).targets.find((t: { name: string }) => t.name === 'gw').backends).toHaveLength(2);
    const stacked = [...plan.alarmStacks.values()].flat().map((t) => t.name);
    expect(stacked.sort()).toEqual(plan.alarmed.map((t) => t.name).sort());
  });

  it("shows each backend on the status page under the gateway's display name, covered by its windows and hidden with it", () => {
    const withPage = (status: { name?: string; hidden?: boolean }) =>
      planFleet({
        ...config,
        targets: [...smallFleet().targets, { ...gateway, status }],
        statusPage: { title: 'Acme MCP' },
        maintenance: [{ name: 'gw-upgrade', schedule: 'cron(0 2 * * SUN)', duration: 'PT1H', targets: ['gw'] }],
      }).status!;
    const page = withPage({ name: 'Tools gateway' });
    const rows = page.targets.filter((t) => t.metric.startsWith('gw'));
    expect(rows.map((t) => [t.metric, t.name])).toEqual([
      ['gw', 'Tools gateway'],
      ['gw/github', 'Tools gateway / github'],
      ['gw/docs', 'Tools gateway / docs'],
    ]);
    expect(rows.every((t) => t.regions === rows[0]!.regions && t.periodSeconds === rows[0]!.periodSeconds)).toBe(true);
    expect(page.maintenance[0]!.targets).toEqual(['Tools gateway', 'Tools gateway / github', 'Tools gateway / docs']);
    const hidden = withPage({ hidden: true });
    expect(hidden.targets.filter((t) => t.metric.startsWith('gw'))).toEqual([]);
    expect(hidden.maintenance).toEqual([]);
  });

  it("mutes a gateway's backends with it in a maintenance window", () => {
    const plan = planFleet({
      ...config,
      maintenance: [{ name: 'gw-upgrade', schedule: 'cron(0 2 * * SUN)', duration: 'PT1H', targets: ['gw'] }],
    });
    const muted = [...plan.muteRuleStacks.values()].flat().flatMap((r) => r.alarmNames);
    expect(muted.sort()).toEqual(
      [
        'McpCanary/gw/critical',
        'McpCanary/gw/warning',
        'McpCanary/gw/github/critical',
        'McpCanary/gw/github/warning',
        'McpCanary/gw/docs/critical',
        'McpCanary/gw/docs/warning',
      ].sort(),
    );
  });
});
