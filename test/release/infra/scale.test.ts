/**
 * The largest fleet the README promises deploys: 5,000 targets × 5 regions, every target with a secret
 * and a canary tool (a tenth on `rate(5 minutes)`), and a maintenance window over all of them. It is
 * synthesized once (bundling skipped) and every stack is measured the way CloudFormation and IAM count:
 * resources, outputs and parameters, template bytes as written, each role's inline policies resolved to
 * their longest form without whitespace; and every alarm, schedule and function within its service's
 * limits. Time is not asserted here: `npm run bench` prints it (test/bench/fleet-scale.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { ASSUMED_MAX_SCHEDULE_PAYLOAD_BYTES, planFleet } from '../../../infra/plan/plan.ts';
import { ALARM_SHARD_DEPTH } from '../../../infra/plan/placement.ts';
import { parentBucket } from '../../../infra/plan/stack-split.ts';
import { CLOUDFORMATION_MAX_RESOURCES, CLOUDFORMATION_MAX_TEMPLATE_BYTES } from '../../../infra/plan/template-size.ts';
import { alarmsInFlight } from '../../../infra/quotas/in-flight.ts';
import {
  generatedFleet,
  measureStack,
  rolePolicyChars,
  SCALE_REGIONS,
  SCALE_TARGETS,
  scaleRow,
  synthesize,
  type StackTemplate,
  type Synthesized,
} from '../../bench/fleet-scale.ts';

/** IAM: a role's inline policies, in all (whitespace not counted). */
const IAM_ROLE_INLINE_POLICY_CHARS = 10_240;
/** CloudFormation: outputs and parameters per stack. */
const MAX_OUTPUTS = 200;
const MAX_PARAMETERS = 200;
/** CloudWatch: alarm name, description, metrics per metric-math alarm. */
const MAX_ALARM_NAME = 255;
const MAX_ALARM_DESCRIPTION = 1_024;
const MAX_METRICS_PER_ALARM = 10;
/** EventBridge Scheduler: schedule description. Lambda: environment variables, 4 KB in all. */
const MAX_SCHEDULE_DESCRIPTION = 512;
const MAX_LAMBDA_ENVIRONMENT_BYTES = 4 * 1024;

function largestFleet(count = SCALE_TARGETS): FleetInput {
  const base = generatedFleet(count, SCALE_REGIONS);
  return {
    ...base,
    runbookUrl: 'https://runbooks.example.com/mcp-canary',
    targets: base.targets.map((t, i) => (i % 10 === 0 ? { ...t, schedule: 'rate(5 minutes)' } : t)),
    maintenance: [{ name: 'quarterly-upgrade', schedule: 'cron(0 3 1 */3 *)', duration: '2 hours' }],
  };
}

let synth: Synthesized;
let stacks: readonly StackTemplate[];
const resources = (type: string) =>
  stacks.flatMap((s) =>
    Object.values(s.template.Resources)
      .filter((r) => r.Type === type)
      .map((r) => ({ stack: s.stackName, p: r.Properties ?? {} })),
  );

beforeAll(() => {
  synth = synthesize(largestFleet());
  stacks = synth.stacks;
  const row = scaleRow(SCALE_TARGETS, SCALE_REGIONS.length, synth);
  console.log(
    `${SCALE_TARGETS} × ${SCALE_REGIONS.length}: synth ${Math.round(row.synthMs)} ms, ${row.stacks} stacks, ${row.totalResources} resources; ` +
      `most resources ${row.largestResources} (${row.largestStack}), largest template ${row.largestTemplateBytes} bytes (${row.largestTemplateStack}), ` +
      `largest role policy ${row.largestPolicyChars} chars`,
  );
}, 600_000);

describe(`${SCALE_TARGETS.toLocaleString('en-US')} targets × ${SCALE_REGIONS.length} regions`, () => {
  it('passes every AWS quota the synth-time checker measures (infra/quotas), references at their longest', () => {
    expect(synth.quotaFindings).toEqual([]);
  });

  it('keeps every stack within CloudFormation’s per-stack quotas', () => {
    for (const s of stacks) {
      const m = measureStack(s);
      expect(m.resources, s.stackName).toBeLessThanOrEqual(CLOUDFORMATION_MAX_RESOURCES);
      expect(m.templateBytes, s.stackName).toBeLessThanOrEqual(CLOUDFORMATION_MAX_TEMPLATE_BYTES);
      expect(m.outputs, s.stackName).toBeLessThanOrEqual(MAX_OUTPUTS);
      expect(m.parameters, s.stackName).toBeLessThanOrEqual(MAX_PARAMETERS);
    }
  });

  it('keeps every role’s inline policies within IAM’s 10,240 characters, as resolved', () => {
    const all = stacks.flatMap((s) => [...rolePolicyChars(s)].map(([role, chars]) => ({ role: `${s.stackName}/${role}`, chars })));
    expect(all.length).toBeGreaterThan(SCALE_REGIONS.length);
    for (const r of all) expect(r.chars, r.role).toBeLessThanOrEqual(IAM_ROLE_INLINE_POLICY_CHARS);
  });

  it('deploys every alarm, schedule and mute rule once, and each within its service’s limits', () => {
    const alarms = resources('AWS::CloudWatch::Alarm').map(
      (a) => a.p as { AlarmName: string; AlarmDescription: string; Metrics?: unknown[] },
    );
    const targetAlarms = alarms.filter((a) => /^McpCanary\/svc-\d+\//.test(a.AlarmName));
    expect(new Set(targetAlarms.map((a) => a.AlarmName)).size).toBe(3 * SCALE_TARGETS);
    for (const a of alarms) {
      expect(a.AlarmName.length).toBeLessThanOrEqual(MAX_ALARM_NAME);
      expect(a.AlarmDescription.length, a.AlarmName).toBeLessThanOrEqual(MAX_ALARM_DESCRIPTION);
      expect((a.Metrics ?? []).length, a.AlarmName).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
    }
    const schedules = resources('AWS::Scheduler::Schedule');
    for (const region of SCALE_REGIONS) {
      const here = schedules.filter((s) => s.stack.startsWith(`McpCanary-probe-${region}`));
      const names = here.flatMap((s) =>
        (JSON.parse((s.p.Target as { Input: string }).Input) as { targets: Array<{ name: string }> }).targets.map((t) => t.name),
      );
      expect(names.length, region).toBe(SCALE_TARGETS);
      expect(new Set(names).size, region).toBe(SCALE_TARGETS);
    }
    for (const s of schedules) {
      expect(Buffer.byteLength((s.p.Target as { Input: string }).Input)).toBeLessThanOrEqual(ASSUMED_MAX_SCHEDULE_PAYLOAD_BYTES);
      expect(String(s.p.Description).length).toBeLessThanOrEqual(MAX_SCHEDULE_DESCRIPTION);
    }
    const muted = resources('AWS::CloudWatch::AlarmMuteRule').flatMap((r) => (r.p.MuteTargets as { AlarmNames: string[] }).AlarmNames);
    expect(new Set(muted).size).toBe(2 * SCALE_TARGETS);
    for (const f of resources('AWS::Lambda::Function'))
      expect(
        Buffer.byteLength(JSON.stringify((f.p.Environment as { Variables?: unknown } | undefined)?.Variables ?? {})),
      ).toBeLessThanOrEqual(MAX_LAMBDA_ENVIRONMENT_BYTES);
  });

  it('splits by size: alarm, schedule and mute-rule stacks beyond the first, each deploying after the stack it split from', () => {
    const byName = new Map(stacks.map((s) => [s.stackName, s]));
    const alarmStacks = stacks.filter((s) => s.stackName.startsWith('McpCanary-alarms-'));
    expect(alarmStacks.length).toBeGreaterThan(2 ** ALARM_SHARD_DEPTH);
    for (const s of alarmStacks) {
      const id = Number(s.stackName.slice('McpCanary-alarms-'.length));
      let parent = parentBucket(id, ALARM_SHARD_DEPTH);
      while (parent !== undefined && !byName.has(`McpCanary-alarms-${String(parent).padStart(2, '0')}`))
        parent = parentBucket(parent, ALARM_SHARD_DEPTH);
      if (parent !== undefined) expect(s.dependsOn, s.stackName).toContain(`McpCanary-alarms-${String(parent).padStart(2, '0')}`);
    }
    for (const region of SCALE_REGIONS) {
      const overflow = stacks.filter((s) => s.stackName.startsWith(`McpCanary-probe-${region}-`));
      expect(overflow.length, region).toBeGreaterThan(0);
      for (const s of overflow) expect(s.dependsOn).toContain(`McpCanary-probe-${region}`);
    }
    expect(stacks.filter((s) => s.stackName.startsWith('McpCanary-maintenance')).length).toBeGreaterThan(0);
  });

  it('moves nothing but one split stack’s items when the fleet grows by one target', () => {
    const before = planFleet(largestFleet());
    const after = planFleet({
      ...largestFleet(),
      targets: [...largestFleet().targets, { ...largestFleet(1).targets[0]!, name: 'zz-new' }],
    });
    const alarmStack = new Map(after.targets.map((t) => [t.name, t.alarmStack]));
    const moved = before.targets.filter((t) => alarmStack.get(t.name) !== t.alarmStack);
    expect(new Set(moved.map((t) => t.alarmStack)).size).toBeLessThanOrEqual(1);
    for (const region of after.regions) {
      const old = before.regions.find((r) => r.region === region.region)!;
      const stackOf = new Map(old.rates.flatMap((r) => r.schedules.map((s) => [`${s.rateSlug}/${s.index}`, s.stack] as const)));
      const hopped = region.rates
        .flatMap((r) => r.schedules)
        .filter((s) => stackOf.has(`${s.rateSlug}/${s.index}`) && stackOf.get(`${s.rateSlug}/${s.index}`) !== s.stack);
      expect(new Set(hopped.map((s) => stackOf.get(`${s.rateSlug}/${s.index}`))).size, region.region).toBeLessThanOrEqual(1);
    }
  });

  it('creates at most 3 alarms at a time in every stack, the home Region’s alarm stacks one after another', () => {
    const withAlarms = stacks.filter((s) => Object.values(s.template.Resources).some((r) => r.Type === 'AWS::CloudWatch::Alarm'));
    for (const s of withAlarms) expect(alarmsInFlight(s.template.Resources), s.stackName).toBeLessThanOrEqual(3);
    const id = (s: StackTemplate) => Number(s.stackName.slice('McpCanary-alarms-'.length));
    const heavy = stacks.filter((s) => /^McpCanary-alarms-/.test(s.stackName)).sort((a, b) => id(a) - id(b));
    // Each alarm stack waits for the one before it: a chain through all of them.
    heavy.slice(1).forEach((s, i) => expect(s.dependsOn, s.stackName).toContain(heavy[i]!.stackName));
    const alarms = stacks.reduce(
      (n, s) => n + Object.values(s.template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length,
      0,
    );
    const home = synth.runtime.deploy.find((d) => d.region === SCALE_REGIONS[0])!;
    expect(home.inFlight).toBe(3);
    expect(home.alarms).toBeGreaterThanOrEqual(3 * SCALE_TARGETS);
    expect(home.alarms).toBeLessThanOrEqual(alarms);
    expect(home.seconds).toBeGreaterThan(80 * 60);
  });

  it('warns at synth about exactly the runtime quotas it passes, each in one line', () => {
    const over = synth.runtime.findings.map((f) => `${f.quota.id} ${f.region}`).sort();
    expect(over).toEqual(
      [
        'cloudwatch-put-metric-data us-east-1',
        'lambda-concurrency us-east-1',
        'sns-page-deliveries us-east-1',
        ...SCALE_REGIONS.map((r) => `dynamodb-new-table-writes ${r}`),
      ].sort(),
    );
    for (const f of synth.runtime.findings) expect(f.message).not.toContain('\n');
  });
});
