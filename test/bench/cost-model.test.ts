import { describe, expect, it } from 'vitest';
import { costPerTargetRegion, fleetCost, tiered, type Inventory } from './cost-model.ts';
import { criticalPath } from './critical-path.ts';
import { PRICES } from './prices.ts';

/** One schedule every minute in one region carrying two targets; `a` has a secret and three alarm metrics. */
const inventory: Inventory = {
  schedules: [
    {
      region: 'eu-west-1',
      periodSeconds: 60,
      memoryMb: 1024,
      architecture: 'arm64',
      targets: [
        { name: 'a', secretsManagerRefs: 1 },
        { name: 'b', secretsManagerRefs: 0 },
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
  it('prices a target·region: its metrics, alarms and secret reads, and half of the invocations it shares', () => {
    // Act
    const [a, b] = costPerTargetRegion(inventory, usage, PRICES);
    // Assess: 43,200 runs a month, 21,600 invocations each target's share
    expect(a!.customMetrics).toBeCloseTo(0.3, 10);
    expect(a!.putMetricData).toBeCloseTo(0.216, 10);
    expect(a!.lambda).toBeCloseTo(21_600 * (0.0000002 + 0.0000133334), 10);
    expect(a!.scheduler).toBeCloseTo(0.0216, 10);
    // (43,200 × (700 + 26) + 21,600 × (270 + 3 × 26)) bytes at $0.50 + $0.03 per GiB
    expect(a!.logs).toBeCloseTo((38_880_000 / 2 ** 30) * 0.53, 10);
    expect(a!.alarms).toBeCloseTo(0.3, 10);
    expect(a!.secretReads).toBeCloseTo(8_640 * 0.000005, 10);
    expect(a!.total).toBeCloseTo(1.19231264, 6);
    expect(a!.synthetics).toBeCloseTo(51.84, 10);
    expect(b!.total).toBeCloseTo(1.19231264 - 0.3 - 0.0432, 6);
  });

  it("shares a target's metric and alarms among the regions that probe it", () => {
    // Prepare: target a probed from a second region too
    const twoRegions: Inventory = {
      ...inventory,
      schedules: [
        ...inventory.schedules,
        { ...inventory.schedules[0]!, region: 'us-east-1', targets: [{ name: 'a', secretsManagerRefs: 0 }] },
      ],
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
    expect(fleet.total).toBeCloseTo(2 * 1.19231264 - 0.3432 + 0.2 + 3 - 0.0432, 6);
    expect(fleet.perTargetRegion).toBeCloseTo(fleet.total / 2, 10);
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
