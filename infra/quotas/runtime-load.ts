/**
 * What a fleet asks of each runtime quota (runtime-limits.ts) at its peak, per Region, from its plan alone:
 * pure, no CDK, no templates. The same figures price the fleet (`npm run cost` reads the publish waves from
 * here and the read rate from credential-rate.ts, as this file does), so the bill and the warnings cannot disagree.
 *
 * The peak is one firing at its worst, and the model says so rather than average it away:
 * - Scheduler promises no spread between schedules (rate schedules one deploy creates start together, and
 *   all rates line up now and then), so every schedule of a Region fires in the same second;
 * - a run makes its start-of-run calls (the ledger claims) in that second, all targets at once, and sends
 *   at most one PutMetricData a second (a wave waits WAVE_WINDOW_SECONDS for batch-mates);
 * - credential reads are the exception: warm containers serve most of them from their cache, so their
 *   quotas are held to the steady rate (credential-rate.ts, checked against the bench's measured reads), and
 *   the first firing after a deploy, when every container is cold and reads everything, is reported beside it;
 * - a mass incident is every target failing at once: each pages, and each critical and warning alarm
 *   change starts a brief.
 */
import type { FleetPlan } from '../plan/plan.ts';
import { CREDENTIAL_READS, readRates, readsPerRun, SECRET_CACHE_SECONDS, type CredentialReads, type ReadApi } from './credential-rate.ts';
import type { RuntimeQuota } from './runtime-limits.ts';
import { RuntimeQuotas } from './runtime-limits.ts';

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
  /** A credential read's first firing after a deploy (every container cold), beside its steady `peak`. */
  readonly afterDeploy?: AfterDeploy;
}

/** The first firing after a deploy: every container cold, every due schedule reading all its references. */
export interface AfterDeploy {
  /** Calls that firing makes: in one second if its schedules fire together, over the minute if they spread. */
  readonly calls: number;
  readonly why: string;
}

export interface LoadOptions {
  /** @default CREDENTIAL_READS (credential-rate.ts) */
  readonly credentialReads?: CredentialReads;
  /** What SNS sends one HTTPS subscriber a second (the pages topic's delivery policy). */
  readonly pageDeliveriesPerSecond: number;
  /** Alarms CloudFormation creates at once (the pacing of infra/constructs/alarm-pacing.ts). */
  readonly alarmsInFlight: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

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
  // A gateway's backends have alarms of their own (plan.alarmed): each one's changes brief too.
  const homeExtras = 2 * plan.alarmed.length + (plan.status ? 1 : 0) + (grants > 0 ? 1 : 0);
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
          ? ` and, in a mass incident, ${int(2 * plan.alarmed.length)} briefs (a critical and a warning alarm change per target or backend)`
          : ''),
    });
  }

  loads.push({
    quota: RuntimeQuotas.putMetricData,
    region: home,
    peak: allSchedules,
    why: `${int(allSchedules)} runs in ${plan.regions.length} Region(s) publish to the home Region, each at most one call a second`,
  });

  loads.push(...credentialLoads(plan, reads));

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
    const seconds = plan.alarmed.length / o.pageDeliveriesPerSecond;
    loads.push({
      quota: RuntimeQuotas.snsPageDeliveries,
      region: home,
      peak: seconds,
      why: `${int(plan.alarmed.length)} targets and backends paging at once reach an HTTPS pager at ${o.pageDeliveriesPerSecond} a second`,
    });
  }
  return loads;
}

const API_QUOTA: Record<ReadApi | 'Decrypt', RuntimeQuota> = {
  GetParameters: RuntimeQuotas.ssmGetParameter,
  GetParameter: RuntimeQuotas.ssmGetParameter,
  GetSecretValue: RuntimeQuotas.secretsManagerGetSecretValue,
  BatchGetSecretValue: RuntimeQuotas.secretsManagerBatchGetSecretValue,
  Decrypt: RuntimeQuotas.kmsCryptographicOperations,
};
/** What each credential-read quota counts, in the warning's words. */
const WHAT: Partial<Record<RuntimeQuota['id'], string>> = {
  'ssm-get-parameter': 'GetParameters calls (10 names each) and GetParameter calls',
  'secrets-manager-get-secret-value': 'GetSecretValue calls (a store read for one secret, and delegated access tokens)',
  'secrets-manager-batch-get-secret-value': 'BatchGetSecretValue calls (20 secrets each)',
  'kms-cryptographic-operations': 'Decrypts, one behind each SecureString parameter or secret read',
};

/**
 * Each credential-read quota per Region at its steady rate: every schedule's batched calls, as often as its
 * runs read (the cache's share), spread over its period; the first firing after a deploy beside it.
 */
function credentialLoads(plan: FleetPlan, reads: CredentialReads): RuntimeLoad[] {
  const byQuota = new Map<string, { quota: RuntimeQuota; region: string; steady: number; first: number }>();
  for (const r of readRates(plan, reads)) {
    const quota = API_QUOTA[r.api];
    const key = `${quota.id}|${r.region}`;
    const sum = byQuota.get(key) ?? { quota, region: r.region, steady: 0, first: 0 };
    sum.steady += r.steadyPerSecond;
    sum.first += r.firstFiring;
    byQuota.set(key, sum);
  }
  return [...byQuota.values()].map(({ quota, region, steady, first }) => ({
    quota,
    region,
    peak: steady,
    why: `${WHAT[quota.id] ?? quota.name} from every probe Region that reads there, steady: warm containers read a credential again on about ${readShare(plan, reads)} of runs (infra/quotas/credential-rate.ts)`,
    afterDeploy: {
      calls: first,
      why: `after a deploy every container is cold and the first firing makes ${int(first)} such calls at once`,
    },
  }));
}

/** The share of runs that read, over the fleet's schedules, as a percentage for the messages. */
function readShare(plan: FleetPlan, reads: CredentialReads): string {
  const rates = plan.regions.flatMap((r) => r.rates.map((rate) => ({ rate, containers: rate.schedules.length })));
  const shares = rates.map(({ rate, containers }) => readsPerRun(reads, rate.periodSeconds, containers, SECRET_CACHE_SECONDS));
  const [lo, hi] = [Math.min(...shares), Math.max(...shares)].map((x) => `${Math.round(x * 100)} %`);
  return lo === hi ? lo! : `${lo}–${hi}`;
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
