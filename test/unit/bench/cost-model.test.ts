import { describe, expect, it } from 'vitest';
import {
  billedShares,
  costPerTargetRegion,
  fleetCost,
  tiered,
  WALL_SCREEN,
  type Inventory,
  type ScheduleInventory,
} from '../../bench/cost-model.ts';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { burnAlarmsCost, featureDelta, refresherCost, reportCost, statusPageCost, traceExportCost } from '../../bench/cost-features.ts';
import { delegatingFleet, REFRESHER_USAGE, STATUS_USAGE } from '../../bench/cost-features-report.ts';
import { criticalPath } from '../../bench/critical-path.ts';
import { generatedFleet, synthesize } from '../../bench/fleet-scale.ts';
import { readInventory } from '../../bench/inventory.ts';
import { PRICES } from '../../bench/prices.ts';

/** One schedule every minute in one region carrying two targets; `a` has a secret and three alarm metrics. */
const inventory: Inventory = {
  schedules: [
    {
      region: 'eu-west-1',
      periodSeconds: 60,
      memoryMb: 1024,
      architecture: 'arm64',
      targets: [
        { name: 'a', credentials: [{ kind: 'secretsManager', id: 'a-token', storedIn: 'eu-west-1' }] },
        { name: 'b', credentials: [] },
      ],
    },
  ],
  publishedMetrics: 2,
  metricsPerTarget: 1,
  alarms: [
    { target: 'a', alarmMetrics: 3, math: true },
    { target: null, alarmMetrics: 2, math: true },
  ],
  dashboards: 1,
  logRetentionDays: 30,
};
const usage = { billedMs: 1000, recordBytesPerTarget: 700 };

describe('the cost model', () => {
  it('prices a target·region: its metrics, alarms, secret and its reads, and half of the invocations it shares', () => {
    // Act
    const [a, b] = costPerTargetRegion(inventory, usage, PRICES);
    // Assess: 43,200 runs a month, 21,600 invocations each target's share, two PutMetricData waves each
    expect(a!.customMetrics).toBeCloseTo(0.3, 10);
    expect(a!.putMetricData).toBeCloseTo(0.432, 10);
    expect(a!.lambda).toBeCloseTo(21_600 * (0.0000002 + 0.0000133334), 10);
    expect(a!.scheduler).toBeCloseTo(0.0216, 10);
    // (43,200 × (700 + 26) + 21,600 × (270 + 3 × 26)) bytes at $0.50 + $0.03 per GiB
    expect(a!.logs).toBeCloseTo((38_880_000 / 2 ** 30) * 0.53, 10);
    expect(a!.alarms).toBeCloseTo(0.3, 10);
    expect(a!.secretReads).toBeCloseTo(8_640 * 0.000005, 10);
    // Its secret, stored in the one region that reads it by name.
    expect(a!.credentialStorage).toBeCloseTo(0.4, 10);
    expect(a!.total).toBeCloseTo(1.40831264 + 0.4, 6);
    expect(a!.synthetics).toBeCloseTo(51.84, 10);
    expect(b!.total).toBeCloseTo(1.40831264 - 0.3 - 0.0432, 6);
  });

  it("shares a target's metric and alarms among the regions that probe it", () => {
    // Prepare: target a probed from a second region too
    const twoRegions: Inventory = {
      ...inventory,
      schedules: [...inventory.schedules, { ...inventory.schedules[0]!, region: 'us-east-1', targets: [{ name: 'a', credentials: [] }] }],
    };
    // Act
    const costs = costPerTargetRegion(twoRegions, usage, PRICES).filter((c) => c.target === 'a');
    // Assess
    expect(costs.map((c) => c.customMetrics)).toEqual([0.15, 0.15]);
    expect(costs.map((c) => c.alarms.toFixed(6))).toEqual(['0.150000', '0.150000']);
  });

  it('adds the canary alarms and dashboards to the fleet and takes off the Scheduler allowance', () => {
    // Act
    const fleet = fleetCost(inventory, costPerTargetRegion(inventory, usage, PRICES), PRICES);
    // Assess
    expect(fleet.canaryAlarms).toBeCloseTo(0.2, 10);
    expect(fleet.dashboards).toBe(3);
    expect(fleet.schedulerAllowance).toBeCloseTo(-0.0432, 10);
    expect(fleet.total).toBeCloseTo(2 * 1.40831264 + 0.4 - 0.3432 + 0.2 + 3 - 0.0432, 6);
    expect(fleet.perTargetRegion).toBeCloseTo(fleet.total / 2, 10);
  });

  describe('credentials, as stored', () => {
    const regions = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
    const probedFrom = (credentials: (region: string) => ScheduleInventory['targets'][number]['credentials']): Inventory => ({
      ...inventory,
      schedules: regions.map((region) => ({
        ...inventory.schedules[0]!,
        region,
        targets: [{ name: 'a', credentials: credentials(region) }],
      })),
    });
    const perRegion = (inv: Inventory) => costPerTargetRegion(inv, usage, PRICES).map((c) => c.credentialStorage + c.secretReads);

    it('a Secrets Manager secret by name is one secret in every probe region: $0.40 per target·region', () => {
      const inv = probedFrom((region) => [{ kind: 'secretsManager', id: 'a-token', storedIn: region }]);
      for (const usd of perRegion(inv)) expect(usd).toBeCloseTo(0.4 + 8_640 * 0.000005, 10);
    });

    it('one secret in the home region, read by ARN from every region, costs a third of that', () => {
      const inv = probedFrom(() => [{ kind: 'secretsManager', id: 'a-token', storedIn: 'us-east-1' }]);
      for (const usd of perRegion(inv)) expect(usd).toBeCloseTo(0.4 / 3 + 8_640 * 0.000005, 10);
    });

    it('a standard SecureString parameter costs only the KMS Decrypt of each read', () => {
      const inv = probedFrom(() => [{ kind: 'ssmParameter', id: '/a/token', storedIn: 'us-east-1' }]);
      for (const usd of perRegion(inv)) expect(usd).toBeCloseTo(8_640 * 0.000003, 10);
    });
  });

  describe('reads and publishes as the runs do (infra/quotas/credential-rate.ts and runtime-load.ts, which the synth checks share)', () => {
    /** `schedules` schedules of one target each, every minute, in one region: one run function serving them all. */
    const busy = (schedules: number, credentials: ScheduleInventory['targets'][number]['credentials']): Inventory => ({
      ...inventory,
      schedules: Array.from({ length: schedules }, (_, i) => ({
        ...inventory.schedules[0]!,
        targets: [{ name: `t${i}`, credentials: i === 0 ? credentials : [] }],
      })),
    });
    const secret = [{ kind: 'secretsManager' as const, id: 'a-token', storedIn: 'eu-west-1' }];

    it('reads a credential once per warm container per 5 minutes, on as many containers as the function has schedules', () => {
      // One schedule: 1 run in 5 reads (8,640 a month); four: each lands on one of four containers, 4 ÷ (4 + 4) of runs.
      expect(costPerTargetRegion(busy(1, secret), usage, PRICES)[0]!.secretReads).toBeCloseTo(8_640 * 0.000005, 10);
      expect(costPerTargetRegion(busy(4, secret), usage, PRICES)[0]!.secretReads).toBeCloseTo(21_600 * 0.000005, 10);
    });

    it('takes a measured read rate instead, in calls per target per minute', () => {
      const measured = { ...usage, credentialReads: { perTargetMinute: 0.1 } };
      expect(costPerTargetRegion(busy(4, secret), measured, PRICES)[0]!.secretReads).toBeCloseTo(4_320 * 0.000005, 10);
    });

    it('bills SSM reads at the higher-throughput price in a Region over standard throughput, KMS alone elsewhere', () => {
      const parameter = [{ kind: 'ssmParameter' as const, id: '/a/token', storedIn: 'us-east-1' }];
      const higher = { ...usage, ssmHigherThroughputRegions: new Set(['us-east-1']) };
      expect(costPerTargetRegion(busy(1, parameter), usage, PRICES)[0]!.secretReads).toBeCloseTo(8_640 * 0.000003, 10);
      expect(costPerTargetRegion(busy(1, parameter), higher, PRICES)[0]!.secretReads).toBeCloseTo(8_640 * (0.000003 + 0.000005), 10);
    });

    it('bills a parameter its share of the batched GetParameters call its run reads it in, and its own Decrypt', () => {
      // 25 targets with a parameter each in one schedule: read as 10 + 10 + 5 names, 3 calls for 25 parameters.
      const batch: Inventory = {
        ...inventory,
        schedules: [
          {
            ...inventory.schedules[0]!,
            targets: Array.from({ length: 25 }, (_, i) => ({
              name: `t${i}`,
              credentials: [{ kind: 'ssmParameter' as const, id: `/a/t${i}`, storedIn: 'us-east-1' }],
            })),
          },
        ],
      };
      const higher = { ...usage, ssmHigherThroughputRegions: new Set(['us-east-1']) };
      for (const c of costPerTargetRegion(batch, higher, PRICES))
        expect(c.secretReads).toBeCloseTo(8_640 * (0.000003 + (3 / 25) * 0.000005), 10);
      // 21 parameters: 10 + 10, and the one left over alone (GetParameter): still 3 calls.
      const odd = { ...batch, schedules: [{ ...batch.schedules[0]!, targets: batch.schedules[0]!.targets.slice(0, 21) }] };
      for (const c of costPerTargetRegion(odd, higher, PRICES))
        expect(c.secretReads).toBeCloseTo(8_640 * (0.000003 + (3 / 21) * 0.000005), 10);
    });

    it('publishes one PutMetricData for a lone target and three for a full batch of remote endpoints', () => {
      const batch: Inventory = {
        ...inventory,
        schedules: [{ ...inventory.schedules[0]!, targets: Array.from({ length: 25 }, (_, i) => ({ name: `t${i}`, credentials: [] })) }],
      };
      expect(costPerTargetRegion(busy(1, []), usage, PRICES)[0]!.putMetricData).toBeCloseTo(43_200 * 0.00001, 10);
      expect(costPerTargetRegion(batch, usage, PRICES)[0]!.putMetricData).toBeCloseTo((43_200 / 25) * 3 * 0.00001, 10);
    });
  });

  it('prices the ledger: two write units per target and run (the claims are per target, not shared by the schedule)', () => {
    const [a] = costPerTargetRegion({ ...inventory, ledgerRegions: ['eu-west-1'] }, usage, PRICES);
    expect(a!.ledger).toBeCloseTo(43_200 * 2 * 0.000000625, 12);
  });

  it('prices a dashboard left open: every refresh, each Logs Insights widget scans its region’s run log over the range', () => {
    // Prepare: three widgets over eu-west-1's log, 3 hours of range, on a 1-minute refresh all month
    const withWidgets: Inventory = { ...inventory, dashboardLogWidgets: ['eu-west-1', 'eu-west-1', 'eu-west-1'], dashboardRangeHours: 3 };
    // Act
    const fleet = fleetCost(withWidgets, costPerTargetRegion(withWidgets, usage, PRICES), PRICES, usage, WALL_SCREEN);
    // Assess: 180 runs of 2 × 726 B plus 180 × 348 B of platform lines an hour... × 3 h × 3 widgets × 43,200 refreshes
    const bytesPerHour = 60 * (2 * (700 + 26) + (270 + 3 * 26));
    expect(fleet.dashboardScans).toBeCloseTo(((43_200 * 3 * 3 * bytesPerHour) / 1e9) * 0.005, 8);
    expect(fleetCost(inventory, costPerTargetRegion(inventory, usage, PRICES), PRICES, usage, WALL_SCREEN).dashboardScans).toBe(0);
  });

  it('bills a hanging target for the wait it alone causes, not its batch-mates', () => {
    const shares = billedShares([...Array<number>(24).fill(1_000), 32_000]);
    expect(shares.slice(0, 24).every((ms) => ms === 40)).toBe(true);
    expect(shares[24]).toBe(31_040);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(32_000);
  });

  it('prices custom metrics along the tiers', () => {
    expect(tiered(PRICES.customMetricTiers, 10_000)).toBeCloseTo(3_000, 6);
    expect(tiered(PRICES.customMetricTiers, 12_000)).toBeCloseTo(3_200, 6);
    expect(tiered(PRICES.customMetricTiers, 1_500_000)).toBeCloseTo(3_000 + 24_000 + 37_500 + 10_000, 6);
  });
});

describe('the critical path', () => {
  const r = (label: string, startMs: number, endMs: number, openedConnection = false) => ({ label, startMs, endMs, openedConnection });

  it('counts requests sent one after another', () => {
    expect(criticalPath([r('discover', 0, 1, true), r('tools/list', 2, 3), r('tools/call', 4, 5)])).toEqual({
      roundTrips: 3,
      chain: ['discover', 'tools/list', 'tools/call'],
    });
  });

  it('counts requests in flight together once', () => {
    expect(criticalPath([r('discover', 0, 1), r('tools/list', 2, 4), r('other', 2.5, 3.5), r('tools/call', 5, 6)]).roundTrips).toBe(3);
  });

  it('adds the handshake of a connection opened on the chain, not of one opened beside it', () => {
    const reqs = [r('discover', 0, 1, true), r('tools/list', 2, 3, true), r('side stream', 0.5, 4.5, true), r('tools/call', 4, 5)];
    expect(criticalPath(reqs, 2).roundTrips).toBe(7);
    expect(
      criticalPath(
        reqs.map((x) => (x.label === 'tools/list' ? { ...x, openedConnection: false } : x)),
        2,
      ).roundTrips,
    ).toBe(5);
  });
});

describe('the optional features', () => {
  // Two targets in three regions: small enough to synthesize in a unit test, the same stacks as any fleet.
  const fleet = generatedFleet(2);
  const base = synthesize(fleet).stacks;
  const on = (f: FleetInput) => featureDelta(base, synthesize(f).stacks);
  const delegating = (count: number) => on(delegatingFleet(fleet, count));

  it('a feature that is off adds nothing and costs nothing', () => {
    // Act
    const none = featureDelta(base, base);
    // Assess
    expect(none).toEqual({ metricAlarms: 0, alarmMetrics: 0, compositeAlarms: 0, functions: [], buckets: 0, distributions: 0, grants: [] });
    expect(burnAlarmsCost(none, 2, PRICES).total).toBe(0);
    expect(refresherCost(none, REFRESHER_USAGE, PRICES).total).toBe(0);
    expect(statusPageCost(none, 2, STATUS_USAGE, PRICES, 0).total).toBe(0);
  });

  it('prices burn alarms from the synthesized alarms: 8 window alarms of 2 metrics and 2 composites, $2.60 a target', () => {
    // Act
    const d = on({ ...fleet, targets: fleet.targets.map((t) => ({ ...t, slo: { objective: 99.9, burnAlarms: true } })) });
    const cost = burnAlarmsCost(d, 2, PRICES);
    // Assess
    expect([d.metricAlarms, d.alarmMetrics, d.compositeAlarms]).toEqual([16, 32, 4]);
    expect(cost.perTarget).toBeCloseTo(8 * 2 * 0.1 + 2 * 0.5, 10);
  });

  it('keeps the run inventory, and so the headline, unchanged when the status page is on (its schedule is not a run)', () => {
    // Act
    const withStatus = synthesize({ ...fleet, statusPage: { public: true } }).stacks;
    const before = readInventory(base, 'McpCanary');
    const after = readInventory(withStatus, 'McpCanary');
    const usage = { billedMs: 1000, recordBytesPerTarget: 700 };
    // Assess
    expect(after.schedules).toEqual(before.schedules);
    expect(fleetCost(after, costPerTargetRegion(after, usage, PRICES), PRICES, usage).total).toBeCloseTo(
      fleetCost(before, costPerTargetRegion(before, usage, PRICES), PRICES, usage).total + PRICES.alarmMetric, // its errors alarm
      10,
    );
    const d = featureDelta(base, withStatus);
    expect([d.functions.length, d.metricAlarms, d.distributions]).toEqual([1, 1, 1]);
    // 8,640 runs × 2 targets × 2.5 metrics, and 17,280 PUTs
    const cost = statusPageCost(d, 2, STATUS_USAGE, PRICES, before.schedules.length * 43_200);
    expect(cost.parts.GetMetricData).toBeCloseTo(8_640 * 2 * 2.5 * 0.00001, 10);
    expect(cost.parts['S3 PUTs']).toBeCloseTo(17_280 * 0.000005, 10);
    expect(cost.parts.CloudFront).toBe(0);
  });

  it('prices a delegated target: the grant and a copy per probe region, their calls, two metrics, its alarm', () => {
    // Act
    const one = delegating(1);
    const first = refresherCost(one, REFRESHER_USAGE, PRICES);
    const further = refresherCost(delegating(2), REFRESHER_USAGE, PRICES).total - first.total;
    // Assess: 4 secrets; 8,640 × 4 reads + 1,440 × 5 writes + 43,200 × 3 probe reads
    expect(one.grants.map((g) => g.regions.length)).toEqual([3]);
    expect(first.parts.secrets).toBeCloseTo(1.6, 10);
    expect(first.parts['Secrets Manager API']).toBeCloseTo((34_560 + 7_200 + 129_600) * 0.000005, 10);
    expect(first.parts['custom metrics']).toBeCloseTo(0.6, 10);
    expect(one.metricAlarms).toBe(2); // the refresher's errors alarm and the target's credential alarm
    expect(further).toBeCloseTo(1.6 + 0.8568 + 0.6 + 0.1, 10);
  });

  it("prices traces sent to AWS's OTLP endpoint as X-Ray records them: $5 per million past 100,000 a month", () => {
    // 100 targets × 3 regions at one run a minute: one trace per run.
    const cost = traceExportCost(300 * 43_200, 100);
    expect(cost.total).toBeCloseTo((12_960_000 - 100_000) * 0.000005, 8);
    expect(cost.total / 300).toBeCloseTo(0.2143, 4);
    expect(traceExportCost(90_000, 2).total).toBe(0);
  });

  it("prices a report as its own counter counts: every page of a request, at the window's resolution", () => {
    // 30 days at 5-minute points: 200 series × 8,640 points is 18 pages of 100,800
    expect(reportCost(100, 30, 100, PRICES)).toMatchObject({ requests: 18, metrics: 3_600 });
    // 7 days at 1-minute points
    expect(reportCost(100, 7, 100, PRICES)).toMatchObject({ requests: 20, metrics: 4_000 });
    // 300 targets: a request of 250 (500 series × 1,440 points: 8 pages) and one of 50 (2 pages)
    expect(reportCost(300, 1, 100, PRICES)).toMatchObject({ requests: 10, metrics: 8 * 500 + 2 * 100 });
  });
});

describe('a gateway with 10 backends', () => {
  // One gateway in the three regions of the generated fleet, its 10 backends judged in its run.
  const [one] = generatedFleet(1).targets;
  const backends = Array.from({ length: 10 }, (_, i) => ({ name: `b${i}`, tool: { name: 'get_status' } }));
  const gateway: FleetInput = { ...generatedFleet(1), targets: [{ ...one!, name: 'gw', timeoutMs: 2_000, budgetMs: 30_000, backends }] };
  const inv = readInventory(synthesize(gateway).stacks, 'McpCanary');
  const rows = costPerTargetRegion(inv, usage, PRICES);

  it('prices each backend as a target: its own metric and alarms, a share of the invocation it rides in', () => {
    const names = [...new Set(rows.map((r) => r.target))];
    expect(names).toEqual(['gw', ...backends.map((b) => `gw/${b.name}`)]);
    expect(inv.publishedMetrics).toBe(11);
    const backend = rows.filter((r) => r.target === 'gw/b3');
    const own = rows.filter((r) => r.target === 'gw');
    expect(backend).toHaveLength(own.length);
    for (const r of backend) {
      expect(r.payloadTargets).toBe(11);
      expect(r.alarms).toBeCloseTo(own.find((o) => o.region === r.region)!.alarms, 10);
      expect(r.customMetrics).toBeGreaterThan(0);
      // The gateway's credentials are read, and its period claimed in the ledger, by its run alone.
      expect(r.secretReads).toBe(0);
      expect(r.ledger).toBe(0);
    }
    // One invocation per period and region, shared by the gateway and its backends: no more than one target's.
    const lambda = rows.reduce((n, r) => n + r.lambda, 0);
    const alone = costPerTargetRegion(readInventory(synthesize(generatedFleet(1)).stacks, 'McpCanary'), usage, PRICES);
    expect(lambda).toBeCloseTo(
      alone.reduce((n, r) => n + r.lambda, 0),
      6,
    );
  });
});
