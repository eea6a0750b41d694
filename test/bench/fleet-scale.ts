/**
 * Fleet scale: synthesize generated fleets through `McpCanaryFleet` in this process (bundling skipped,
 * the cloud assembly in a temp dir), read every stack's template from the assembly, and measure what
 * CloudFormation and IAM will count: resources, outputs and parameters per stack, template bytes as
 * written, and each role's inline policies resolved to their longest form with whitespace removed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import type { FleetInput } from '../../functions/base/config/schema/fleet.ts';
import { checkQuotas } from '../../infra/quotas/check.ts';
import { McpCanaryFleet, type FleetRuntime } from '../../infra/fleet.ts';

export const BENCH_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
/** The largest fleet the README promises: 5,000 targets probed from these five regions. */
export const SCALE_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'] as const;
export const SCALE_TARGETS = 5_000;

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
  readonly template: {
    readonly Resources: Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>;
    readonly Outputs?: Record<string, unknown>;
    readonly Parameters?: Record<string, unknown>;
  };
  readonly templateBytes: number;
  /** Stacks this one deploys after, by stack name. */
  readonly dependsOn: readonly string[];
}

export interface Synthesized {
  readonly synthMs: number;
  readonly stacks: readonly StackTemplate[];
  /** What the synth-time quota checker (infra/quotas) found: any finding would have failed the synth. */
  readonly quotaFindings: readonly string[];
  /** The runtime quotas at the fleet's peak, their warnings, and the deploy's alarm pace (McpCanaryFleet.runtime). */
  readonly runtime: FleetRuntime;
}

/** Synthesizes `config` as `new McpCanaryFleet(app, id, config)` would deploy it. */
export function synthesize(config: FleetInput, id = 'McpCanary'): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'mcp-canary-bench-synth-'));
  try {
    const started = performance.now();
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const fleet = new McpCanaryFleet(app, id, config);
    const assembly = app.synth();
    const synthMs = performance.now() - started;
    return {
      synthMs,
      stacks: readStacks(assembly),
      quotaFindings: [...fleet.quotas.findings, ...checkQuotas(assembly, { alarmsInFlight: fleet.runtime.alarmsInFlight })].map(
        (f) => f.message,
      ),
      runtime: fleet.runtime,
    };
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
      dependsOn: s.dependencies.filter((d) => 'stackName' in d).map((d) => (d as { stackName: string }).stackName),
    };
  });
}

/** What CloudFormation and IAM count in one stack. */
export interface StackMeasure {
  readonly stackName: string;
  readonly resources: number;
  readonly templateBytes: number;
  readonly outputs: number;
  readonly parameters: number;
  /** The largest total of one role's inline policies (its own and AWS::IAM::Policy resources attached to it), as IAM counts them. */
  readonly rolePolicyChars: number;
}

export function measureStack(t: StackTemplate): StackMeasure {
  return {
    stackName: t.stackName,
    resources: Object.keys(t.template.Resources).length,
    templateBytes: t.templateBytes,
    outputs: Object.keys(t.template.Outputs ?? {}).length,
    parameters: Object.keys(t.template.Parameters ?? {}).length,
    rolePolicyChars: Math.max(0, ...rolePolicyChars(t).values()),
  };
}

/**
 * Each role's inline policy characters: IAM counts the policy text without whitespace, after
 * CloudFormation resolved its references. Pseudo parameters take their longest values; a reference to
 * another resource takes 256 characters (longer than any ARN or name these stacks reference).
 */
export function rolePolicyChars(t: StackTemplate): Map<string, number> {
  const out = new Map<string, number>();
  const add = (role: string, doc: unknown) => out.set(role, (out.get(role) ?? 0) + JSON.stringify(longest(doc)).replace(/\s/g, '').length);
  for (const [id, r] of Object.entries(t.template.Resources)) {
    if (r.Type === 'AWS::IAM::Role')
      for (const p of (r.Properties?.Policies ?? []) as Array<{ PolicyDocument: unknown }>) add(id, p.PolicyDocument);
    if (r.Type === 'AWS::IAM::Policy') {
      for (const role of (r.Properties?.Roles ?? []) as Array<{ Ref?: string }>)
        add(role.Ref ?? JSON.stringify(role), r.Properties?.PolicyDocument);
    }
  }
  return out;
}

const LONGEST_PSEUDO: Record<string, string> = {
  'AWS::Partition': 'aws-us-gov',
  'AWS::AccountId': '111122223333',
  'AWS::Region': 'ap-southeast-5',
  'AWS::URLSuffix': 'amazonaws.com.cn',
  'AWS::StackName': 'x'.repeat(128),
};
const REFERENCE = 'x'.repeat(256);

function longest(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(longest);
  if (typeof v !== 'object' || v === null) return v;
  const o = v as Record<string, unknown>;
  if ('Ref' in o) return LONGEST_PSEUDO[o.Ref as string] ?? REFERENCE;
  if ('Fn::GetAtt' in o) return REFERENCE;
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map((x) => String(longest(x))).join(sep);
  }
  if ('Fn::Sub' in o && typeof o['Fn::Sub'] === 'string')
    return (o['Fn::Sub'] as string).replace(/\$\{([^}]+)\}/g, (_, name: string) => LONGEST_PSEUDO[name] ?? REFERENCE);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, longest(x)]));
}

export interface ScaleRow {
  readonly targets: number;
  readonly regions: number;
  readonly synthMs: number;
  readonly stacks: number;
  readonly totalResources: number;
  /** The stack with the most resources, and how many. */
  readonly largestStack: string;
  readonly largestResources: number;
  readonly largestTemplateBytes: number;
  readonly largestTemplateStack: string;
  /** The largest role policy total of any stack, as IAM counts it (10,240 allowed). */
  readonly largestPolicyChars: number;
  readonly mostOutputs: number;
  readonly mostParameters: number;
}

export function scaleRow(targets: number, regions: number, s: Synthesized): ScaleRow {
  const m = s.stacks.map(measureStack);
  const byResources = [...m].sort((a, b) => b.resources - a.resources)[0]!;
  const byBytes = [...m].sort((a, b) => b.templateBytes - a.templateBytes)[0]!;
  return {
    targets,
    regions,
    synthMs: s.synthMs,
    stacks: m.length,
    totalResources: m.reduce((n, t) => n + t.resources, 0),
    largestStack: byResources.stackName,
    largestResources: byResources.resources,
    largestTemplateBytes: byBytes.templateBytes,
    largestTemplateStack: byBytes.stackName,
    largestPolicyChars: Math.max(...m.map((t) => t.rolePolicyChars)),
    mostOutputs: Math.max(...m.map((t) => t.outputs)),
    mostParameters: Math.max(...m.map((t) => t.parameters)),
  };
}

/** The fleets `npm run bench` synthesizes: small, the first release's advertised size, and the largest that deploys. */
export const SCALE_FLEETS: ReadonlyArray<{ targets: number; regions: readonly string[] }> = [
  { targets: 10, regions: BENCH_REGIONS },
  { targets: 1_000, regions: BENCH_REGIONS },
  { targets: SCALE_TARGETS, regions: SCALE_REGIONS },
];

/** The bench's table of scale rows. */
export function scaleTableRows(rows: readonly ScaleRow[]): { head: string[]; rows: string[][] } {
  const kb = (b: number) => `${Math.round(b / 1000)} KB`;
  return {
    head: [
      'targets × regions',
      'synth',
      'stacks',
      'resources',
      'most resources',
      'largest template',
      'largest role policy',
      'outputs / params',
    ],
    rows: rows.map((r) => [
      `${r.targets.toLocaleString('en-US')} × ${r.regions}`,
      `${(r.synthMs / 1000).toFixed(1)} s`,
      String(r.stacks),
      r.totalResources.toLocaleString('en-US'),
      `${r.largestResources} (${r.largestStack})`,
      `${kb(r.largestTemplateBytes)} (${r.largestTemplateStack})`,
      `${r.largestPolicyChars.toLocaleString('en-US')} chars`,
      `${r.mostOutputs} / ${r.mostParameters}`,
    ]),
  };
}
