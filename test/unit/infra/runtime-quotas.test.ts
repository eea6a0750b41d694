/**
 * Every runtime quota synth checks (infra/quotas/runtime-limits.ts) fires on a fleet just over its default and
 * stays silent on the same fleet just under it, from the fleet's plan; the warning reaches `cdk synth` as a
 * one-line annotation naming the quota and how to raise it, and an account's granted figure replaces the default.
 */
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { HTTPS_DELIVERY_POLICY } from '../../../infra/constructs/topics.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { RUNTIME_QUOTAS, type RuntimeQuotaId } from '../../../infra/quotas/runtime-limits.ts';
import { ACCESS_CACHE_SECONDS, CREDENTIAL_READS, readsPerRun, SECRET_CACHE_SECONDS } from '../../../infra/quotas/credential-rate.ts';
import { fleetLoads, publishWaves, WAVE_WINDOW_SECONDS } from '../../../infra/quotas/runtime-load.ts';
import { ACCESS_TTL_MS, SECRET_TTL_MS } from '../../../functions/io/secrets/reader.ts';
import { WAVE_WINDOW_MS } from '../../../functions/io/publish/waves.ts';
import {
  alarmPace,
  checkRuntime,
  deployEstimates,
  duration,
  type AccountQuotas,
  type RuntimeFinding,
} from '../../../infra/quotas/runtime.ts';
import { newTestApp } from '../../helpers/infra/synth.ts';

const ACCOUNT = '111122223333';
const pages = [{ url: 'https://events.pagerduty.example.com/integration/abc/enqueue' }];

function fleet(targets: FleetInput['targets'], home = 'us-east-1', probeRegions = [home]): FleetInput {
  return { homeRegion: home, probeRegions, notify: { pages, canaryOwner: [{ email: 'owner@example.com' }] }, targets };
}
const plain = (n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ name: `t-${String(i).padStart(5, '0')}`, url: `https://t-${i}.example.com/mcp`, ...extra }));
/** A target big enough (a 3 KB tool argument) that a schedule holds it alone: one schedule per target. */
const alone = (n: number) => plain(n, { tool: { name: 'get', arguments: { pad: 'x'.repeat(3_100) } } });

/** Targets probed from `home` whose references total exactly `reads`, ten to a target, all stored in `storedIn`. */
function reading(reads: number, service: 'ssm' | 'secretsmanager', storedIn: string): FleetInput['targets'] {
  const ref = (t: number, k: number) =>
    service === 'ssm'
      ? { ssmParameter: `arn:aws:ssm:${storedIn}:${ACCOUNT}:parameter/mcp-canary/t${t}/k${k}` }
      : { secretsManager: `arn:aws:secretsmanager:${storedIn}:${ACCOUNT}:secret:mcp-canary/t${t}-k${k}-AbCdEf` };
  return plain(Math.ceil(reads / 10)).map((t, i) => ({
    ...t,
    headerSecrets: Object.fromEntries(Array.from({ length: Math.min(10, reads - i * 10) }, (_, k) => [`X-K${k}`, ref(i, k)])),
  }));
}

/**
 * `n` targets probed every minute from `probeRegions`, each alone in its schedule (so the run function has n
 * schedules, and a reference is read again on n ÷ (n + 4) of runs), each with `refs` references in `storedIn`.
 * Steady calls a second in `storedIn`: regions × n × n ÷ (n + 4) ÷ 60, times the calls one read of `refs` makes.
 */
function aloneReading(n: number, refs: number, service: 'ssm' | 'secretsmanager', storedIn: string): FleetInput['targets'] {
  const ref = (t: number, k: number) =>
    service === 'ssm'
      ? { ssmParameter: `arn:aws:ssm:${storedIn}:${ACCOUNT}:parameter/mcp-canary/t${t}/k${k}` }
      : { secretsManager: `arn:aws:secretsmanager:${storedIn}:${ACCOUNT}:secret:mcp-canary/t${t}-k${k}-AbCdEf` };
  return alone(n).map((t, i) => ({
    ...t,
    headerSecrets: Object.fromEntries(Array.from({ length: refs }, (_, k) => [`X-K${k}`, ref(i, k)])),
  }));
}

function fired(config: FleetInput, id: RuntimeQuotaId, account: AccountQuotas = {}) {
  const loads = fleetLoads(planFleet(config), {
    pageDeliveriesPerSecond: HTTPS_DELIVERY_POLICY.throttlePolicy.maxReceivesPerSecond,
    alarmsInFlight: alarmPace(account),
  });
  return checkRuntime(loads, account).filter((f) => f.quota.id === id);
}

interface Case {
  /** The same fleet, n one way or the other of the default. */
  readonly under: () => FleetInput;
  readonly over: () => FleetInput;
  readonly region: string;
  readonly limit: number;
}

const CASES: Partial<Record<RuntimeQuotaId, Case>> = {
  // eu-north-1 is not among Scheduler's primary Regions: 500 invocations a second.
  'scheduler-invocations': {
    under: () => fleet(alone(500), 'eu-north-1'),
    over: () => fleet(alone(501), 'eu-north-1'),
    region: 'eu-north-1',
    limit: 500,
  },
  // The home Region: one run per schedule (25 targets each) and two briefs per target in a mass incident.
  'lambda-concurrency': { under: () => fleet(plain(490)), over: () => fleet(plain(491)), region: 'us-east-1', limit: 1_000 },
  'cloudwatch-put-metric-data': { under: () => fleet(alone(500)), over: () => fleet(alone(501)), region: 'us-east-1', limit: 500 },
  // Steady, one GetParameter a read: 2,403² ÷ 2,407 ÷ 60 = 39.98 calls a second; 2,404 targets: 40.0001.
  'ssm-get-parameter': {
    under: () => fleet(aloneReading(2_403, 1, 'ssm', 'us-east-1')),
    over: () => fleet(aloneReading(2_404, 1, 'ssm', 'us-east-1')),
    region: 'us-east-1',
    limit: 40,
  },
  // Two secrets a target, one BatchGetSecretValue a read, from two probe Regions: 2 × 3,003² ÷ 3,007 ÷ 60 = 99.97; 3,004: 100.0002.
  'secrets-manager-batch-get-secret-value': {
    under: () => fleet(aloneReading(3_003, 2, 'secretsmanager', 'us-east-1'), 'us-east-1', ['us-east-1', 'eu-west-1']),
    over: () => fleet(aloneReading(3_004, 2, 'secretsmanager', 'us-east-1'), 'us-east-1', ['us-east-1', 'eu-west-1']),
    region: 'us-east-1',
    limit: 100,
  },
  'dynamodb-new-table-writes': { under: () => fleet(plain(4_000)), over: () => fleet(plain(4_001)), region: 'us-east-1', limit: 4_000 },
  // 600 pages at 10 a second: the last one a minute after the first.
  'sns-page-deliveries': { under: () => fleet(plain(600)), over: () => fleet(plain(601)), region: 'us-east-1', limit: 60 },
};

describe('each runtime quota fires on a fleet just over its default and is silent just under', () => {
  it.each(Object.entries(CASES))('%s', (id, c) => {
    // Act
    const under = fired(c.under(), id as RuntimeQuotaId);
    const over = fired(c.over(), id as RuntimeQuotaId);
    // Assess
    expect(under).toEqual([]);
    expect(over).toHaveLength(1);
    const [f] = over;
    expect(f!.region).toBe(c.region);
    expect(f!.limit).toBe(c.limit);
    expect(f!.peak).toBeGreaterThan(c.limit);
    expect(f!.message).not.toContain('\n');
    // A credential read's quota is held to its steady rate ('runs at'); every other to its peak.
    expect(f!.message).toMatch(new RegExp(` in ${c.region} (peaks|runs) at `));
    expect(f!.message).toContain(f!.quota.source);
    expect(f!.message).toContain(`To stay under it: ${f!.quota.raise}`);
  });

  it('covers every runtime quota but those no fleet reaches at the steady rate, and PutMetricAlarm, paced to its quota', () => {
    const covered = new Set(Object.keys(CASES));
    // GetSecretValue (10,000 a second) is a store read for one secret, at most one a schedule and read: 600,000
    // schedules a minute; KMS (5,500) a Decrypt per reference read. Their loads are counted (credential-rate.test.ts).
    expect(RUNTIME_QUOTAS.map((q) => q.id).filter((id) => !covered.has(id))).toEqual([
      'secrets-manager-get-secret-value',
      'kms-cryptographic-operations',
      'cloudwatch-put-metric-alarm',
    ]);
    // The pace follows the quota, default or granted: the deploy never asks for more (the templates prove it: deploy-order.test.ts).
    expect(fired(fleet(plain(5)), 'cloudwatch-put-metric-alarm')).toEqual([]);
    expect(fired(fleet(plain(5)), 'cloudwatch-put-metric-alarm', { 'cloudwatch-put-metric-alarm': 12 })).toEqual([]);
    expect(alarmPace({ 'cloudwatch-put-metric-alarm': 12 })).toBe(12);
  });

  it('takes the figure an account was granted instead of the default', () => {
    const over = fleet(aloneReading(2_404, 1, 'ssm', 'us-east-1'));
    expect(fired(over, 'ssm-get-parameter', { 'ssm-get-parameter': 10_000 })).toEqual([]);
    expect(fired(over, 'ssm-get-parameter', { 'ssm-get-parameter': 40 })).toHaveLength(1);
  });
});

describe('in the synthesized fleet', () => {
  const synth = (config: FleetInput, context: Record<string, unknown> = {}, accountQuotas?: AccountQuotas) => {
    const { app, cleanup } = newTestApp();
    try {
      for (const [k, v] of Object.entries(context)) app.node.setContext(k, v);
      return new McpCanaryFleet(app, 'McpCanary', config, accountQuotas ? { accountQuotas } : {});
    } finally {
      cleanup();
    }
  };

  it('warns once per finding on the stack of its Region, acknowledgeable by the quota id', () => {
    // Prepare: 41 parameters in eu-west-1, read from 2 Regions by one schedule each: 5 calls a read (4 GetParameters
    // and one GetParameter), on one run in 5: 2 × 5 ÷ 5 ÷ 60 = 0.033 calls a second, over a granted 0.02.
    const { app, cleanup } = newTestApp();
    try {
      const f = new McpCanaryFleet(app, 'McpCanary', fleet(reading(41, 'ssm', 'eu-west-1'), 'us-east-1', ['us-east-1', 'eu-west-1']), {
        accountQuotas: { 'ssm-get-parameter': 0.02 },
      });
      // Act
      const warnings = (stack: McpCanaryFleet['home'] | McpCanaryFleet['probeStacks'][number]) =>
        Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('mcp-canary:quota:'));
      const probe = f.probeStacks.find((s) => s.region === 'eu-west-1')!;
      // Assess: read from 2 Regions, stored in eu-west-1: its warning is on that Region's stack, the first firing said.
      expect(warnings(f.home)).toEqual([]);
      expect(warnings(probe).map((w) => w.entry.data)).toEqual([
        expect.stringMatching(
          /^mcp-canary: Systems Manager Parameter Store GetParameter standard throughput in eu-west-1 runs at 0.033 calls a second: GetParameters calls .* steady: .* the quota is 0.02 \(your accountQuotas figure\) .* the first firing makes 10 such calls at once: .* not judged that minute .*turn on higher throughput.*\[ack: mcp-canary:quota:ssm-get-parameter\]$/,
        ),
      ]);
    } finally {
      cleanup();
    }
  });

  it('says what the first firing after a deploy does when only it is over the quota, as information', () => {
    // Prepare: the same fleet, 0.033 calls a second steady, within a granted 5; its first firing makes 10 calls at once.
    const { app, cleanup } = newTestApp();
    try {
      const f = new McpCanaryFleet(app, 'McpCanary', fleet(reading(41, 'ssm', 'eu-west-1'), 'us-east-1', ['us-east-1', 'eu-west-1']), {
        accountQuotas: { 'ssm-get-parameter': 5 },
      });
      const probe = f.probeStacks.find((s) => s.region === 'eu-west-1')!;
      // Act
      const infos = Annotations.fromStack(probe).findInfo('*', Match.stringLikeRegexp('first firing'));
      // Assess
      expect(f.runtime.findings).toEqual([]);
      expect(infos.map((i) => i.entry.data)).toEqual([
        expect.stringMatching(
          /^mcp-canary: Systems Manager Parameter Store GetParameter standard throughput in eu-west-1 runs at 0.033 calls a second, steady, within its quota of 5 \(.*\)\. After a deploy every container is cold and the first firing makes 10 such calls at once: .*throttled, tried once more/,
        ),
      ]);
    } finally {
      cleanup();
    }
  });

  it('reads granted figures from the option or the context, and refuses a quota id it does not know', () => {
    // 0.017 calls a second steady: over a granted 0.01, within 10,000, whichever way it is given.
    const over = fleet(reading(41, 'ssm', 'us-east-1'));
    const ssm = (findings: readonly RuntimeFinding[]) => findings.filter((x) => x.quota.id === 'ssm-get-parameter');
    expect(ssm(synth(over, {}, { 'ssm-get-parameter': 0.01 }).runtime.findings)).toHaveLength(1);
    expect(ssm(synth(over, { 'mcp-canary:account-quotas': '{"ssm-get-parameter": 0.01}' }).runtime.findings)).toHaveLength(1);
    expect(synth(over, {}, { 'ssm-get-parameter': 10_000 }).runtime.findings).toEqual([]);
    expect(synth(over, { 'mcp-canary:account-quotas': '{"ssm-get-parameter": 10000}' }).runtime.findings).toEqual([]);
    expect(() => synth(over, {}, { 'ssm-get-parameters': 10_000 } as AccountQuotas)).toThrow(
      'mcp-canary: McpCanaryFleet accountQuotas.ssm-get-parameters is not a quota synth checks; use one of scheduler-invocations,',
    );
    expect(() => synth(over, { 'mcp-canary:account-quotas': '{"ssm-get-parameter": 0}' })).toThrow(
      'mcp-canary: the context value mcp-canary:account-quotas.ssm-get-parameter must be a positive number',
    );
  });
});

describe('the read and publish rates (today’s design), which npm run cost bills too', () => {
  it('reads a credential once per cache life on a function with one schedule, and nearly every run on a busy one', () => {
    expect(readsPerRun(CREDENTIAL_READS, 60, 1, 300)).toBe(1 / 5);
    expect(readsPerRun(CREDENTIAL_READS, 60, 4, 300)).toBe(4 / 8);
    expect(readsPerRun(CREDENTIAL_READS, 60, 200, 300)).toBeCloseTo(200 / 204);
    expect(readsPerRun(CREDENTIAL_READS, 300, 1, 300)).toBe(1);
    expect(readsPerRun(CREDENTIAL_READS, 60, 1, 60)).toBe(1);
    // A measured figure replaces the model: calls per target per minute.
    expect(readsPerRun({ perTargetMinute: 0.05 }, 300, 7, 300)).toBeCloseTo(0.25);
  });

  it('models the run as it is: the reader’s cache lives and the publisher’s wave window', () => {
    // infra may not import the run's rooms; these copies are what the model and the bill read.
    expect(SECRET_CACHE_SECONDS * 1000).toBe(SECRET_TTL_MS);
    expect(ACCESS_CACHE_SECONDS * 1000).toBe(ACCESS_TTL_MS);
    expect(WAVE_WINDOW_SECONDS * 1000).toBe(WAVE_WINDOW_MS);
  });

  it('publishes one wave for a lone target and up to three for a batch of remote endpoints', () => {
    expect([1, 2, 3, 25].map(publishWaves)).toEqual([1, 2, 3, 3]);
  });

  it('prints the deploy time in hours and minutes', () => {
    const [d] = deployEstimates(new Map([['us-east-1', 15_042]]));
    expect(d!.inFlight).toBe(3);
    expect(duration(d!.seconds)).toBe('1 h 24 min');
    expect(duration(40)).toBe('40 s');
  });
});
