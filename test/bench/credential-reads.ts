/**
 * Credential reads of the largest fleet the README promises (5,000 targets × 5 probe regions, a tenth of
 * them every 5 minutes, every target with its own SSM parameter in the home region, by ARN), over Lambda's
 * container churn: how many store calls the runs make, and whether they fit SSM's default throughput
 * (40 TPS per account and region, shared by GetParameter and GetParameters and all else in the account).
 *
 * The reader is the real one (functions/io/secrets/reader.ts: its cache, jitter, reads behind the run and
 * batching), one per simulated container, on a simulated clock, its SSM client a counter that answers at
 * once. What is modelled, because Lambda documents none of it: when Scheduler starts each schedule within
 * its minute (its offset is fixed for a rate schedule), how long an invocation lasts, which idle container
 * Lambda hands an invocation to (at random, or the most recently used), when an idle container is reaped
 * (5 to 15 minutes) and how long one lives at most (1.5 to 2.5 hours). Each scenario is one row; the
 * regions are alike, so one region is simulated and its calls multiplied by five for the home region's.
 *
 * `npm run bench -- --sections credentials` prints the table and writes the figures to .bench/bench.json
 * (`credentials`); MEASURED_CREDENTIAL_READS below is the last run's, for the cost model.
 */
import { GetParameterCommand, GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { FleetInput } from '../../functions/base/config/schema/fleet.ts';
import { Target } from '../../functions/base/config/schema/target.ts';
import { SecretReader } from '../../functions/io/secrets/reader.ts';
import { planFleet } from '../../infra/plan/plan.ts';
import { namesPerTargetRun, readRates } from '../../infra/quotas/credential-rate.ts';

/** SSM's default throughput for GetParameter(s), per account and region. */
export const SSM_DEFAULT_TPS = 40;

/**
 * The figures of the last `npm run bench -- --sections credentials` (2026-12-04, 3 simulated hours, steady
 * state from the second hour): parameters read per target and run, and SSM calls per second in the home
 * region for 5,000 × 5. `names` is what one GetParameter per reference would have cost in calls.
 */
export const MEASURED_CREDENTIAL_READS = {
  measured: '2026-12-04',
  /** Parameters read per target·run, steady, over the scenarios below: the cost model's read rate. */
  namesPerTargetRun: { min: 0.81, max: 0.96 },
  /** GetParameters calls per second in the home region, steady (5 regions), over the scenarios. */
  homeCallsPerSecond: { min: 37.1, max: 44.0 },
  /** The first minute after a deploy (every container cold): calls per second in the home region, worst scenario. */
  firstMinuteCallsPerSecond: 50.0,
  /** With a copy in every probe region read by name: each region's own GetParameters calls per second, steady. */
  perRegionCallsPerSecond: { min: 7.4, max: 8.8 },
} as const;

/**
 * The simulated fleet as a fleet config: 5,000 targets × 5 Regions, a tenth every 5 minutes, each with its own SSM
 * parameter in the home Region by ARN. The read rate synth and `npm run cost` use (infra/quotas/credential-rate.ts)
 * is computed for it beside the measured figures, and held to them (test/unit/infra/credential-rate.test.ts).
 */
export function simulatedFleet(): FleetInput {
  return {
    homeRegion: 'us-east-1',
    probeRegions: ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'],
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/bench/enqueue' }],
      canaryOwner: [{ email: 'owner@example.com' }],
    },
    targets: Array.from({ length: 5_000 }, (_, i) => ({
      name: `t-${i}`,
      url: `https://t-${i}.example.com/mcp`,
      ...(i % 10 === 0 ? { schedule: 'rate(5 minutes)' } : {}),
      headerSecrets: { Authorization: { ssmParameter: `arn:aws:ssm:us-east-1:111122223333:parameter/mcp-canary/t-${i}` } },
    })),
  };
}

/** The model's figures for the simulated fleet: reads per target·run, and the home Region's GetParameter(s) calls a second. */
export function modelledReads(): { namesPerTargetRun: number; homeCallsPerSecond: number; firstMinuteHomeCallsPerSecond: number } {
  const plan = planFleet(simulatedFleet());
  const ssm = readRates(plan).filter((r) => r.region === 'us-east-1' && (r.api === 'GetParameters' || r.api === 'GetParameter'));
  return {
    namesPerTargetRun: namesPerTargetRun(plan),
    homeCallsPerSecond: ssm.reduce((n, r) => n + r.steadyPerSecond, 0),
    firstMinuteHomeCallsPerSecond: ssm.reduce((n, r) => n + r.firstMinutePerSecond, 0),
  };
}

export interface Scenario {
  readonly name: string;
  /** When in its minute a schedule starts: [from, to) seconds. */
  readonly offsetS: readonly [number, number];
  /** How long an invocation lasts (ms), drawn per invocation. */
  readonly durationMs: (random: () => number) => number;
  readonly routing: 'random' | 'mru';
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'spread, random', offsetS: [0, 60], durationMs: (r) => 1_200 + r() * 1_300, routing: 'random' },
  { name: 'spread, most recent', offsetS: [0, 60], durationMs: (r) => 1_200 + r() * 1_300, routing: 'mru' },
  { name: 'top of the minute, random', offsetS: [0, 5], durationMs: (r) => 1_200 + r() * 1_300, routing: 'random' },
  {
    name: 'a fifth hang 32 s, random',
    offsetS: [0, 60],
    durationMs: (r) => (r() < 0.2 ? 32_000 : 1_200 + r() * 1_300),
    routing: 'random',
  },
];

export interface ReadFigures {
  readonly scenario: string;
  readonly peakContainers: number;
  readonly namesPerTargetRun: number;
  /** GetParameters calls a minute in one region, steady. */
  readonly callsPerMinute: number;
  /** The home region's, for five regions alike. */
  readonly homeCallsPerSecond: number;
  readonly firstMinuteHomeCallsPerSecond: number;
  /** The busiest second in one region × 5: an upper bound (regions' offsets differ). */
  readonly peakSecondHome: number;
  /** With a copy of each parameter in every probe region, read by name: each region's own calls a second, steady. */
  readonly perRegionCallsPerSecond: number;
}

interface Container {
  readonly reader: SecretReader;
  busyUntil: number;
  lastUsed: number;
  readonly diesAt: number;
  readonly idleReapMs: number;
}

/** A small seeded generator, so a row is the same run to run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An SSM client that answers every read at once: the simulation counts calls, it does not time them. */
const answering = {
  send: async (command: unknown) => {
    if (command instanceof GetParametersCommand)
      return { Parameters: (command.input.Names ?? []).map((n) => ({ Name: n, ARN: n, Value: 'token' })), InvalidParameters: [] };
    if (command instanceof GetParameterCommand) return { Parameter: { Name: command.input.Name, Value: 'token' } };
    throw new Error('not simulated');
  },
} as unknown as SSMClient;

const settle = () => new Promise<void>((r) => setImmediate(r));

export async function simulateRegion(scenario: Scenario, minutes = 180, targets = 5_000, seed = 7): Promise<ReadFigures> {
  const random = seeded(seed);
  const perSchedule = 25;
  const slowEvery = 10; // a tenth of the targets every 5 minutes
  const all = Array.from({ length: targets }, (_, i) =>
    Target.parse({
      name: `t-${i}`,
      url: `https://t-${i}.example.com/mcp`,
      headerSecrets: { Authorization: { ssmParameter: `arn:aws:ssm:us-east-1:111122223333:parameter/mcp-canary/t-${i}` } },
    }),
  );
  const fast = all.filter((_, i) => i % slowEvery !== 0);
  const slow = all.filter((_, i) => i % slowEvery === 0);
  const schedules = [
    ...chunks(fast, perSchedule).map((ts) => ({ targets: ts, everyMin: 1, pool: 'fast' as const })),
    ...chunks(slow, perSchedule).map((ts) => ({ targets: ts, everyMin: 5, pool: 'slow' as const })),
  ].map((s) => ({ ...s, offsetMs: (scenario.offsetS[0] + random() * (scenario.offsetS[1] - scenario.offsetS[0])) * 1000 }));
  const pools = { fast: [] as Container[], slow: [] as Container[] };
  let clock = 0;
  const callsByMinute: number[] = [];
  const callsBySecond = new Map<number, number>();
  let names = 0;
  let targetRuns = 0;
  const steadyFrom = Math.min(60, Math.floor(minutes / 2));
  let peak = 0;
  const readerOf = () =>
    new SecretReader(
      { ssm: () => answering, secretsManager: () => undefined as unknown as SecretsManagerClient },
      { defaultRegion: 'eu-west-1', now: () => clock, random },
    );
  for (let minute = 0; minute < minutes; minute++) {
    const due = schedules.filter((s) => minute % s.everyMin === 0).sort((a, b) => a.offsetMs - b.offsetMs);
    for (const s of due) {
      const at = minute * 60_000 + s.offsetMs + random() * 500;
      clock = at;
      const pool = pools[s.pool];
      // Reap what Lambda would have: idle too long, or lived too long.
      for (let i = pool.length - 1; i >= 0; i--) {
        const c = pool[i]!;
        if ((c.busyUntil <= at && at - c.lastUsed > c.idleReapMs) || (c.busyUntil <= at && at > c.diesAt)) pool.splice(i, 1);
      }
      const idle = pool.filter((c) => c.busyUntil <= at);
      let container: Container;
      if (idle.length === 0) {
        container = {
          reader: readerOf(),
          busyUntil: 0,
          lastUsed: at,
          diesAt: at + (1.5 + random()) * 3_600_000,
          idleReapMs: (5 + random() * 10) * 60_000,
        };
        pool.push(container);
      } else if (scenario.routing === 'mru') container = idle.reduce((a, b) => (b.lastUsed > a.lastUsed ? b : a));
      else container = idle[Math.floor(random() * idle.length)]!;
      peak = Math.max(peak, pools.fast.length + pools.slow.length);
      const before = { ...container.reader.calls };
      await Promise.all(s.targets.map((t) => container.reader.resolve(t)));
      await settle();
      await settle();
      const calls = container.reader.calls.calls - before.calls;
      if (minute >= steadyFrom) {
        names += container.reader.calls.names - before.names;
        targetRuns += s.targets.length;
      }
      callsByMinute[minute] = (callsByMinute[minute] ?? 0) + calls;
      const second = Math.floor(at / 1000);
      callsBySecond.set(second, (callsBySecond.get(second) ?? 0) + calls);
      container.busyUntil = at + scenario.durationMs(random);
      container.lastUsed = container.busyUntil;
    }
  }
  const steady = callsByMinute.slice(steadyFrom);
  const perMinute = steady.reduce((a, b) => a + b, 0) / steady.length;
  return {
    scenario: scenario.name,
    peakContainers: peak,
    namesPerTargetRun: names / targetRuns,
    callsPerMinute: perMinute,
    homeCallsPerSecond: (perMinute * 5) / 60,
    firstMinuteHomeCallsPerSecond: ((callsByMinute[0] ?? 0) * 5) / 60,
    peakSecondHome: Math.max(...callsBySecond.values()) * 5,
    perRegionCallsPerSecond: perMinute / 60,
  };
}

function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** The bench section: every scenario, one row each. */
export async function credentialReads(minutes = 180): Promise<ReadFigures[]> {
  const rows: ReadFigures[] = [];
  for (const s of SCENARIOS) rows.push(await simulateRegion(s, minutes));
  return rows;
}
