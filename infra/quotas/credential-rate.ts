/**
 * The credential reads a fleet's runs make, as they make them now: the one read rate synth's quota checks
 * (runtime-load.ts) and `npm run cost` (test/bench/cost-model.ts) both use, so the warnings and the bill
 * cannot disagree. test/unit/infra/credential-rate.test.ts holds it to the reads the bench measured over
 * Lambda's container churn (test/bench/credential-reads.ts, MEASURED_CREDENTIAL_READS).
 *
 * What a run does (functions/io/secrets/): it asks for all its targets' references in one turn, and they go
 * out batched per store (service and Region): SSM `GetParameters`, 10 names a call, and Secrets Manager
 * `BatchGetSecretValue`, 20 ids a call; a store asked for one reference gets `GetParameter` /
 * `GetSecretValue`. A warm container keeps each value SECRET_CACHE_SECONDS (less jitter) and reads it again
 * behind a later run, batched the same way; a delegated grant's access token is read alone, kept a minute.
 */
import type { FleetPlan, TargetPlan } from '../plan/plan.ts';

/** functions/io/secrets/batched.ts: SSM_NAMES_PER_CALL and SECRETS_PER_CALL (infra may not import the run's rooms). */
export const SSM_NAMES_PER_CALL = 10;
export const SECRETS_PER_CALL = 20;

/** functions/io/secrets/reader.ts: SECRET_TTL_MS (5 minutes) and ACCESS_TTL_MS (a minute, delegated access tokens). */
export const SECRET_CACHE_SECONDS = 300;
export const ACCESS_CACHE_SECONDS = 60;
/** The field that references a delegated grant's published access token (infra/plan/secret-scope.ts). */
const DELEGATED_ACCESS_FIELD = 'auth.authorizationCode.store';

/**
 * How often a run reads a reference again. `per-container-cache` is the model below; a number replaces it
 * with a measured figure (reads per reference per target per minute of runs).
 */
export interface CredentialReads {
  readonly perTargetMinute: number | 'per-container-cache';
}

/** The read rate both the synth checks and `npm run cost` use. */
export const CREDENTIAL_READS: CredentialReads = { perTargetMinute: 'per-container-cache' };

/**
 * Reads per reference per run. The `containers` schedules of one run function fire together, so each lands
 * on one of as many warm containers, not always the same: a container reads a reference, serves it from
 * its cache for the `c` runs its TTL covers, then waits for the reference's schedule to land on it again
 * (k − 1 runs on average). Over the k containers that is k / (k + c) reads per run: one in five at one run a
 * minute when a function has one schedule, nearly every run when it has many (the bench measured 0.81–0.96
 * at 5,000 × 5, where this gives 0.98: an upper bound).
 */
export function readsPerRun(reads: CredentialReads, periodSeconds: number, containers: number, cacheSeconds: number): number {
  if (reads.perTargetMinute !== 'per-container-cache') return (reads.perTargetMinute * periodSeconds) / 60;
  const cached = Math.max(0, Math.ceil(cacheSeconds / periodSeconds) - 1);
  return containers / (containers + cached);
}

export type ReadService = 'ssm' | 'secretsmanager';
/** The API a read goes out as: batched when a store is asked for more than one reference at once. */
export type ReadApi = 'GetParameters' | 'GetParameter' | 'BatchGetSecretValue' | 'GetSecretValue';

/**
 * The calls one read of `names` references of one store makes (batched.ts): full batches, and a last one
 * of the rest, which goes out alone (GetParameter / GetSecretValue) when it holds one reference.
 */
export function storeCalls(service: ReadService, names: number): Partial<Record<ReadApi, number>> {
  const size = service === 'ssm' ? SSM_NAMES_PER_CALL : SECRETS_PER_CALL;
  const [batch, single] =
    service === 'ssm' ? (['GetParameters', 'GetParameter'] as const) : (['BatchGetSecretValue', 'GetSecretValue'] as const);
  if (names === 0) return {};
  if (names === 1) return { [single]: 1 };
  const full = Math.floor(names / size);
  const rest = names % size;
  const out: Partial<Record<ReadApi, number>> = { [batch]: full + (rest > 1 ? 1 : 0) };
  if (rest === 1) out[single] = 1;
  return out;
}

/** Where a reference is read: an ARN in its own Region, a plain name in the probe Region (functions/io/secrets/reader.ts). */
export function readRegion(id: string, probeRegion: string): string {
  return id.startsWith('arn:') ? (id.split(':')[3] ?? probeRegion) : probeRegion;
}

/** One schedule's reads from one store: what a run reads there when it reads, and how often it does. */
export interface StoreReads {
  readonly probe: string;
  /** Where the calls land (and where their KMS Decrypt is counted). */
  readonly region: string;
  readonly service: ReadService;
  readonly periodSeconds: number;
  /** Distinct references read at once (each a KMS Decrypt, and a billed Secrets Manager read). */
  readonly names: number;
  readonly calls: Partial<Record<ReadApi, number>>;
  /** Of the runs, the share that reads (readsPerRun); 1 for a cold container. */
  readonly readsPerRun: number;
  /** The targets these references belong to, for the bill's shares. */
  readonly targets: readonly string[];
}

/** Every schedule's reads per store: what one read of them makes, and the share of runs that read (a cold container reads them all). */
export function scheduleReads(plan: FleetPlan, reads: CredentialReads = CREDENTIAL_READS): StoreReads[] {
  const byName = new Map(plan.targets.map((t) => [t.name, t]));
  const out: StoreReads[] = [];
  for (const r of plan.regions)
    for (const rate of r.rates)
      for (const s of rate.schedules) {
        const targets = s.targets.map((n) => byName.get(n)!);
        const stores = new Map<string, { service: ReadService; region: string; delegated: boolean; ids: Map<string, Set<string>> }>();
        for (const t of targets)
          for (const ref of t.secretRefs) {
            const delegated = ref.field.startsWith(DELEGATED_ACCESS_FIELD);
            const region = readRegion(ref.id, r.region);
            const key = `${ref.service}|${region}|${delegated}`;
            const store = stores.get(key) ?? { service: ref.service, region, delegated, ids: new Map<string, Set<string>>() };
            store.ids.set(ref.id, (store.ids.get(ref.id) ?? new Set()).add(t.name));
            stores.set(key, store);
          }
        for (const store of stores.values()) {
          const names = store.ids.size;
          // A delegated access token is read on its own (functions/io/secrets/grant-store.ts), one call each.
          const calls = store.delegated ? { GetSecretValue: names } : storeCalls(store.service, names);
          const cache = store.delegated ? ACCESS_CACHE_SECONDS : SECRET_CACHE_SECONDS;
          out.push({
            probe: r.region,
            region: store.region,
            service: store.service,
            periodSeconds: rate.periodSeconds,
            names,
            calls,
            readsPerRun: readsPerRun(reads, rate.periodSeconds, rate.schedules.length, cache),
            targets: [...new Set([...store.ids.values()].flatMap((ts) => [...ts]))],
          });
        }
      }
  return out;
}

/** Per (quota key, Region): calls a second, steady (each schedule's calls spread over its period) and in the first firing after a deploy. */
export interface ReadRate {
  readonly api: ReadApi | 'Decrypt';
  readonly region: string;
  /** Calls a second averaged over a minute of runs, warm. */
  readonly steadyPerSecond: number;
  /** Calls in the first firing after a deploy: every container cold, every schedule due at once reads everything. */
  readonly firstFiring: number;
  /** Of those, a second's worth if they spread over the first minute (when each schedule fires in it is its own). */
  readonly firstMinutePerSecond: number;
}

/** The fleet's reads, summed per API (and the KMS Decrypt behind each reference) and Region. */
export function readRates(plan: FleetPlan, reads: CredentialReads = CREDENTIAL_READS): ReadRate[] {
  const sums = new Map<string, { api: ReadRate['api']; region: string; steady: number; first: number }>();
  const add = (api: ReadRate['api'], region: string, steady: number, first: number) => {
    const key = `${api}|${region}`;
    const s = sums.get(key) ?? { api, region, steady: 0, first: 0 };
    s.steady += steady;
    s.first += first;
    sums.set(key, s);
  };
  for (const s of scheduleReads(plan, reads)) {
    for (const [api, n] of Object.entries(s.calls) as Array<[ReadApi, number]>)
      add(api, s.region, (n * s.readsPerRun) / s.periodSeconds, n);
    add('Decrypt', s.region, (s.names * s.readsPerRun) / s.periodSeconds, s.names);
  }
  return [...sums.values()].map((s) => ({
    api: s.api,
    region: s.region,
    steadyPerSecond: s.steady,
    firstFiring: s.first,
    firstMinutePerSecond: s.first / 60,
  }));
}

/** Reads per target·run of a fleet, warm: references read, over every target's runs (the bench's `namesPerTargetRun`). */
export function namesPerTargetRun(plan: FleetPlan, reads: CredentialReads = CREDENTIAL_READS): number {
  const runsPerMinute = (t: TargetPlan) => (t.regions.length * 60) / t.periodSeconds;
  const targetRuns = plan.targets.reduce((n, t) => n + runsPerMinute(t), 0);
  const names = scheduleReads(plan, reads).reduce((n, s) => n + (s.names * s.readsPerRun * 60) / s.periodSeconds, 0);
  return names / Math.max(1, targetRuns);
}
