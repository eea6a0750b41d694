/**
 * A fleet of 1,000 targets × 3 regions synthesizes with every stack under CloudFormation's 500
 * resources. Synthesized once (bundling skipped); the sizes are read from the cloud assembly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../functions/config/fleet.ts';
import { McpCanaryFleet } from '../../infra/fleet.ts';
import { newTestApp } from './support/synth.ts';

export const CLOUDFORMATION_MAX_RESOURCES = 500;
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

function thousandTargets(): FleetInput {
  return {
    homeRegion: 'us-east-1',
    probeRegions: REGIONS,
    runbookUrl: 'https://runbooks.example.com/mcp-canary',
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/abc/enqueue' }],
      canaryOwner: [{ email: 'owner@example.com' }],
    },
    targets: Array.from({ length: 1000 }, (_, i) => ({
      name: `svc-${String(i).padStart(4, '0')}`,
      url: `https://svc-${i}.mcp.example.com/mcp`,
      headerSecrets: { Authorization: { secretsManager: `mcp-canary/svc-${i}`, prefix: 'Bearer ' } },
      tool: { name: 'health_check', arguments: { deep: false } },
      ...(i % 10 === 0 ? { schedule: 'rate(5 minutes)' } : {}),
    })),
  };
}

describe('scale', () => {
  it('1,000 targets × 3 regions: every stack under 500 resources', () => {
    const { app, cleanup } = newTestApp();
    try {
      const started = performance.now();
      const fleet = new McpCanaryFleet(app, 'McpCanary', thousandTargets());
      const assembly = app.synth();
      const synthMs = Math.round(performance.now() - started);
      const sizes = assembly.stacks
        .map((s) => {
          const t = JSON.parse(readFileSync(join(assembly.directory, s.templateFile), 'utf8')) as { Resources: Record<string, unknown> };
          return { stack: s.stackName, resources: Object.keys(t.Resources).length };
        })
        .sort((a, b) => b.resources - a.resources);
      console.log(`1000×3 synth: ${synthMs} ms, ${sizes.length} stacks, largest ${sizes[0]!.stack} with ${sizes[0]!.resources} resources`);
      console.table(sizes);
      for (const s of sizes) expect(s.resources, s.stack).toBeLessThan(CLOUDFORMATION_MAX_RESOURCES);
      // Everything is there: 3 alarms per target, a schedule for every target in every region.
      const alarms = fleet.alarmStacks.reduce((n, s) => n + s.targetAlarms.length, 0);
      expect(alarms).toBe(1000);
      const scheduled = fleet.plan.regions.map((r) => r.rates.flatMap((x) => x.schedules).flatMap((s) => s.targets).length);
      expect(scheduled).toEqual([1000, 1000, 1000]);
    } finally {
      cleanup();
    }
  });
});
