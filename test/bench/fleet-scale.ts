/**
 * Fleet scale: synthesize generated fleets through `McpCanaryFleet` in this process (bundling skipped,
 * the cloud assembly in a temp dir) and read every stack's template from the assembly.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import type { FleetInput } from '../../functions/config/fleet.ts';
import { McpCanaryFleet } from '../../infra/fleet.ts';

export const BENCH_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;

/** `count` targets, each with a secret reference and a canary tool, probed from three regions every minute. */
export function generatedFleet(count: number, regions: readonly string[] = BENCH_REGIONS): FleetInput {
  return {
    homeRegion: regions[0]!,
    probeRegions: [...regions],
    schedule: 'rate(1 minute)',
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/bench/enqueue' }],
      canaryOwner: [{ email: 'owner@example.com' }],
    },
    targets: Array.from({ length: count }, (_, i) => ({
      name: `svc-${String(i).padStart(4, '0')}`,
      url: `https://svc-${i}.mcp.example.com/mcp`,
      headerSecrets: { Authorization: { secretsManager: `mcp-canary/svc-${i}`, prefix: 'Bearer ' } },
      tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } },
    })),
  };
}

export interface StackTemplate {
  readonly stackName: string;
  readonly region: string;
  readonly template: { readonly Resources: Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }> };
  readonly templateBytes: number;
}

export interface Synthesized {
  readonly synthMs: number;
  readonly stacks: readonly StackTemplate[];
}

/** Synthesizes `config` as `new McpCanaryFleet(app, id, config)` would deploy it. */
export function synthesize(config: FleetInput, id = 'McpCanary'): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'mcp-canary-bench-synth-'));
  try {
    const started = performance.now();
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    new McpCanaryFleet(app, id, config);
    const assembly = app.synth();
    const synthMs = performance.now() - started;
    return { synthMs, stacks: readStacks(assembly) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export function readStacks(assembly: CloudAssembly): StackTemplate[] {
  return assembly.stacks.map((s) => {
    const text = readFileSync(join(assembly.directory, s.templateFile), 'utf8');
    return {
      stackName: s.stackName,
      region: s.environment.region,
      template: JSON.parse(text) as StackTemplate['template'],
      templateBytes: Buffer.byteLength(text),
    };
  });
}

export interface ScaleRow {
  readonly targets: number;
  readonly regions: number;
  readonly synthMs: number;
  readonly stacks: number;
  readonly totalResources: number;
  readonly largestStack: string;
  readonly largestResources: number;
  readonly largestTemplateBytes: number;
}

export function scaleRow(targets: number, s: Synthesized): ScaleRow {
  const sized = s.stacks.map((t) => ({ name: t.stackName, resources: Object.keys(t.template.Resources).length, bytes: t.templateBytes }));
  const largest = [...sized].sort((a, b) => b.resources - a.resources)[0]!;
  return {
    targets,
    regions: BENCH_REGIONS.length,
    synthMs: s.synthMs,
    stacks: sized.length,
    totalResources: sized.reduce((n, t) => n + t.resources, 0),
    largestStack: largest.name,
    largestResources: largest.resources,
    largestTemplateBytes: Math.max(...sized.map((t) => t.bytes)),
  };
}
