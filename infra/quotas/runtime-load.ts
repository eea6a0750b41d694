/**
 * What a fleet asks of each runtime quota (runtime-limits.ts) at its peak, per Region, from its plan alone:
 * pure, no CDK, no templates. The same figures price the fleet (`npm run cost` reads the read and publish
 * rates from here), so the bill and the synth warnings cannot disagree.
 *
 * The peak is one firing at its worst, and the model says so rather than average it away:
 * - Scheduler promises no spread between schedules (rate schedules one deploy creates start together, and
 *   all rates line up now and then), so every schedule of a Region fires in the same second;
 * - a run makes its start-of-run calls (credential reads, the ledger claims) in that second, all targets
 *   at once, and sends at most one PutMetricData a second (a wave waits WAVE_WINDOW_SECONDS for batch-mates);
 * - after a deploy every function is new and every container cold, so that firing reads every credential;
 * - a mass incident is every target failing at once: each pages, and each critical and warning alarm
 *   change starts a brief.
 */
import type { FleetPlan, TargetPlan } from '../plan/plan.ts';
import type { RuntimeQuota } from './runtime-limits.ts';
import { RuntimeQuotas } from './runtime-limits.ts';

/**
 * How often a run calls Secrets Manager or SSM for a credential it references. Today's design
 * (functions/io/secrets/reader.ts): each warm container keeps a value SECRET_CACHE_SECONDS, one read per
 * reference, and a container starting cold reads every reference of its payload.
 */
export interface CredentialReads {
  /**
   * Calls per reference per target per minute of runs, warm. `per-container-cache` derives it from today's
   * design per schedule (`readsPerRun`); a number replaces it with a measured figure.
   */
  readonly perTargetMinute: number | 'per-container-cache';
  /** Calls per reference when every container is cold (after a deploy). */
  readonly coldStartCallsPerRef: number;
}

/** The read rate both the synth checks and `npm run cost` use: today's design until a measured figure replaces it. */
export const CREDENTIAL_READS: CredentialReads = { perTargetMinute: 'per-container-cache', coldStartCallsPerRef: 1 };

/** functions/io/secrets/reader.ts: SECRET_TTL_MS (5 minutes) and ACCESS_TTL_MS (a minute, delegated access tokens). */
export const SECRET_CACHE_SECONDS = 300;
export const ACCESS_CACHE_SECONDS = 60;
/** The field that references a delegated grant's published access token (infra/plan/secret-scope.ts). */
const DELEGATED_ACCESS_FIELD = 'auth.authorizationCode.store';

/**
 * Reads per reference per run, today's design. The `containers` schedules of one run function fire together,
 * so each lands on one of as many warm containers, not always the same: a container reads a reference, then
 * serves it from its cache for the `c` runs its TTL covers, then waits for the reference's schedule to land
 * on it again (k − 1 runs on average). Over the k containers that is k / (k + c) reads per run: one in five
 * at one run a minute when a function has one schedule, nearly every run when it has many.
 */
export function readsPerRun(reads: CredentialReads, periodSeconds: number, containers: number, cacheSeconds: number): number {
  if (reads.perTargetMinute !== 'per-container-cache') return (reads.perTargetMinute * periodSeconds) / 60;
  const cached = Math.max(0, Math.ceil(cacheSeconds / periodSeconds) - 1);
  return containers / (containers + cached);
}

/** functions/io/publish/waves.ts: WAVE_WINDOW_MS. A run sends at most one PutMetricData per window. */
export const WAVE_WINDOW_SECONDS = 1;
/**
 * How far apart the verdicts of one batch of remote endpoints arrive: each target's 3 to 5 requests over
 * TLS take a few hundred milliseconds to a few seconds, so the slowest of a full batch is about 2 s behind
 * the fastest (the docs' "one to three waves"). An assumption, printed wherever it is used.
 */
export const REMOTE_VERDICT_SPREAD_SECONDS = 2;

/** PutMetricData waves of one invocation of `targets` remote endpoints: one per window their verdicts span. */
export function publishWaves(targets: number): number {
  return Math.min(targets, 1 + Math.floor(REMOTE_VERDICT_SPREAD_SECONDS / WAVE_WINDOW_SECONDS));
}

/** One quota at its peak in one Region. */
export interface RuntimeLoad {
  readonly quota: RuntimeQuota;
  readonly region: string;
  /** In the quota's unit. */
  readonly peak: number;
  /** How the peak is made up, in the fleet's words. */
  readonly why: string;
}

export interface LoadOptions {
  /** @default CREDENTIAL_READS */
  readonly credentialReads?: CredentialReads;
  /** What SNS sends one HTTPS subscriber a second (the pages topic's delivery policy). */
  readonly pageDeliveriesPerSecond: number;
  /** Alarms CloudFormation creates at once (the pacing of infra/constructs/alarm-pacing.ts). */
  readonly alarmsInFlight: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** Where a reference is read: an ARN in its own Region, a plain name in the probe Region (functions/io/secrets/reader.ts). */
export function readRegion(id: string, probeRegion: string): string {
  return id.startsWith('arn:') ? (id.split(':')[3] ?? probeRegion) : probeRegion;
}

/** Every (target, probe Region, reference) a firing reads, with where the call lands. */
function credentialReads(plan: FleetPlan): Array<{ target: TargetPlan; probe: string; service: 'ssm' | 'secretsmanager'; region: string }> {
  return plan.targets.flatMap((t) =>
    t.regions.flatMap((probe) => t.secretRefs.map((r) => ({ target: t, probe, service: r.service, region: readRegion(r.id, probe) }))),
  );
}

/** Counts by key, in first-seen order. */
function tally<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const i of items) out.set(key(i), (out.get(key(i)) ?? 0) + 1);
  return out;
}

/** Every runtime quota the fleet spends, at its peak, per Region (the home Region first). */
export function fleetLoads(plan: FleetPlan, o: LoadOptions): RuntimeLoad[] {
  const reads = o.credentialReads ?? CREDENTIAL_READS;
  const home = plan.homeRegion;
  const loads: RuntimeLoad[] = [];
  const schedulesIn = new Map(plan.regions.map((r) => [r.region, r.rates.reduce((n, rate) => n + rate.schedules.length, 0)]));
  const allSchedules = [...schedulesIn.values()].reduce((a, b) => a + b, 0);

  for (const r of plan.regions) {
    const schedules = schedulesIn.get(r.region)!;
    loads.push({
      quota: RuntimeQuotas.schedulerInvocations,
      region: r.region,
      peak: schedules,
      why: `its ${int(schedules)} schedule(s) fire in the same second`,
    });
  }

  // A run finishes within its period, so a schedule holds at most one execution; the home Region adds the brief
  // (one execution per alarm change: a mass incident changes every target's critical and warning alarm at once).
  const grants = plan.fleet.targets.filter((t) => t.auth?.authorizationCode && 'secretsManager' in t.auth.authorizationCode.store).length;
  const homeExtras = 2 * plan.targets.length + (plan.status ? 1 : 0) + (grants > 0 ? 1 : 0);
  for (const region of unique([home, ...plan.regions.map((r) => r.region)])) {
    const runs = schedulesIn.get(region) ?? 0;
    const extra = region === home ? homeExtras : 0;
    loads.push({
      quota: RuntimeQuotas.lambdaConcurrency,
      region,
      peak: runs + extra,
      why:
        `${int(runs)} run(s) at once (one per schedule)` +
        (region === home
          ? ` and, in a mass incident, ${int(2 * plan.targets.length)} briefs (a critical and a warning alarm change per target)`
          : ''),
    });
  }

  loads.push({
    quota: RuntimeQuotas.putMetricData,
    region: home,
    peak: allSchedules,
    why: `${int(allSchedules)} runs in ${plan.regions.length} Region(s) publish to the home Region, each at most one call a second`,
  });

  const refs = credentialReads(plan);
  const cold = (n: number) => Math.ceil(n * reads.coldStartCallsPerRef);
  const byRegion = (service: 'ssm' | 'secretsmanager') =>
    tally(
      refs.filter((x) => x.service === service),
      (x) => x.region,
    );
  for (const [region, n] of byRegion('ssm'))
    loads.push({
      quota: RuntimeQuotas.ssmGetParameter,
      region,
      peak: cold(n),
      why: `${int(n)} parameter reads (target × probe Region × reference) when every container starts cold, as after a deploy`,
    });
  for (const [region, n] of byRegion('secretsmanager'))
    loads.push({
      quota: RuntimeQuotas.secretsManagerGetSecretValue,
      region,
      peak: cold(n),
      why: `${int(n)} secret reads (target × probe Region × reference) when every container starts cold, as after a deploy`,
    });
  // A SecureString parameter and a secret are each decrypted by KMS in their Region, on the account's quota.
  for (const [region, n] of tally(refs, (x) => x.region))
    loads.push({
      quota: RuntimeQuotas.kmsCryptographicOperations,
      region,
      peak: cold(n),
      why: `a Decrypt behind each of ${int(n)} SecureString or secret reads on a cold start`,
    });

  for (const r of plan.regions) {
    const targets = plan.targets.filter((t) => t.regions.includes(r.region)).length;
    loads.push({
      quota: RuntimeQuotas.dynamoDbNewTableWrites,
      region: r.region,
      peak: targets,
      why: `${int(targets)} run claims (one per target) as its schedules fire together`,
    });
  }

  loads.push({
    quota: RuntimeQuotas.putMetricAlarm,
    region: home,
    peak: o.alarmsInFlight,
    why: `the deploy creates at most ${o.alarmsInFlight} alarm(s) at a time (each alarm stack chains them, and the stacks deploy one after another)`,
  });

  if (plan.fleet.notify.pages.some((s) => 'url' in s)) {
    const seconds = plan.targets.length / o.pageDeliveriesPerSecond;
    loads.push({
      quota: RuntimeQuotas.snsPageDeliveries,
      region: home,
      peak: seconds,
      why: `${int(plan.targets.length)} targets paging at once reach an HTTPS pager at ${o.pageDeliveriesPerSecond} a second`,
    });
  }
  return loads;
}

/** Credential reads a month, per (target, probe Region, reference), warm: what `npm run cost` bills. */
export function monthlyReads(
  plan: FleetPlan,
  reads: CredentialReads = CREDENTIAL_READS,
): Array<{ target: string; probe: string; service: 'ssm' | 'secretsmanager'; region: string; perMonth: number }> {
  const out: Array<{ target: string; probe: string; service: 'ssm' | 'secretsmanager'; region: string; perMonth: number }> = [];
  const byName = new Map(plan.targets.map((t) => [t.name, t]));
  for (const r of plan.regions)
    for (const rate of r.rates) {
      const runs = (30 * 86_400) / rate.periodSeconds;
      for (const s of rate.schedules)
        for (const name of s.targets) {
          const t = byName.get(name)!;
          for (const ref of t.secretRefs) {
            const cache = ref.field.startsWith(DELEGATED_ACCESS_FIELD) ? ACCESS_CACHE_SECONDS : SECRET_CACHE_SECONDS;
            out.push({
              target: name,
              probe: r.region,
              service: ref.service,
              region: readRegion(ref.id, r.region),
              perMonth: runs * readsPerRun(reads, rate.periodSeconds, rate.schedules.length, cache),
            });
          }
        }
    }
  return out;
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
