/**
 * The runtime quotas checked at synth: each load (runtime-load.ts) against its quota's default, or the
 * figure the account has had raised (`accountQuotas`). Over one: a finding whose one-line message names the
 * quota, the Region, what makes up the peak, and the request or setting that raises it. McpCanaryFleet
 * turns each into a synth warning (`mcp-canary:quota:<id>`): a fleet over a runtime quota still deploys,
 * and it throttles where the message says. Also here: how many alarms the deploy creates at once, and how
 * long that takes.
 */
import { configError } from '../../functions/base/common/errors.ts';
import { RUNTIME_QUOTA_IDS, RuntimeQuotas, type RuntimeQuota, type RuntimeQuotaId } from './runtime-limits.ts';
import type { RuntimeLoad } from './runtime-load.ts';

/** Quotas this account has had raised, by id: the figure AWS granted (for every Region the fleet uses). */
export type AccountQuotas = Readonly<Partial<Record<RuntimeQuotaId, number>>>;

/** The CDK context key the default app reads `accountQuotas` from (`cdk synth -c mcp-canary:account-quotas='{…}'`, or cdk.json). */
export const ACCOUNT_QUOTAS_CONTEXT = 'mcp-canary:account-quotas';

/** Our own delivery setting, not an account quota: it cannot be raised by a request. */
const NOT_ACCOUNT_QUOTAS: readonly RuntimeQuotaId[] = ['sns-page-deliveries'];

/** `accountQuotas` as given (an object, or the context's JSON text), checked: a typo must not silence a warning. */
export function parseAccountQuotas(raw: unknown, where: string): AccountQuotas {
  if (raw === undefined) return {};
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw configError(`mcp-canary: ${where} is not JSON: got ${JSON.stringify(raw)}. Give an object, e.g. {"ssm-get-parameter": 10000}.`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw configError(`mcp-canary: ${where} must be an object of quota ids and figures, e.g. {"ssm-get-parameter": 10000}.`);
  const known = RUNTIME_QUOTA_IDS.filter((id) => !NOT_ACCOUNT_QUOTAS.includes(id));
  for (const [key, figure] of Object.entries(value)) {
    if (!(known as readonly string[]).includes(key))
      throw configError(`mcp-canary: ${where}.${key} is not a quota synth checks; use one of ${known.join(', ')}.`);
    if (typeof figure !== 'number' || !Number.isFinite(figure) || figure <= 0)
      throw configError(`mcp-canary: ${where}.${key} must be a positive number (the figure AWS granted): got ${JSON.stringify(figure)}.`);
  }
  return value as AccountQuotas;
}

/** The figure a quota allows this account in `region`. */
export function allowed(quota: RuntimeQuota, region: string, account: AccountQuotas = {}): number {
  return account[quota.id] ?? quota.limit(region);
}

/** One runtime quota the fleet is over. */
export interface RuntimeFinding {
  readonly quota: RuntimeQuota;
  readonly region: string;
  readonly peak: number;
  readonly limit: number;
  /** One line: what, where, how much against how much, why, and how to get more. */
  readonly message: string;
}

const figure = (n: number) => (Number.isInteger(n) ? n : Math.round(n * 10) / 10).toLocaleString('en-US');

/** Every load over what its quota allows; none means the fleet runs within every default (or granted) quota. */
export function checkRuntime(loads: readonly RuntimeLoad[], account: AccountQuotas = {}): RuntimeFinding[] {
  return loads.flatMap((l) => {
    const limit = allowed(l.quota, l.region, account);
    if (l.peak <= limit) return [];
    const granted = account[l.quota.id] !== undefined ? ' (your accountQuotas figure)' : '';
    const message =
      `mcp-canary: ${l.quota.service} ${l.quota.name} in ${l.region} peaks at ${figure(l.peak)} ${l.quota.unit}: ${l.why}; ` +
      `the quota is ${figure(limit)}${granted} (${l.quota.source}). To stay under it: ${l.quota.raise}` +
      (NOT_ACCOUNT_QUOTAS.includes(l.quota.id) ? '.' : `; then tell synth the granted figure (accountQuotas "${l.quota.id}").`);
    return [{ quota: l.quota, region: l.region, peak: l.peak, limit, message }];
  });
}

/**
 * Alarms CloudFormation may create (or update, or delete) at once. CloudFormation creates a stack's resources
 * in parallel, as many as their dependencies allow, and retries a throttled PutMetricAlarm only so long before
 * the stack rolls back. Creating one alarm takes it at least ALARM_CREATE_SECONDS (the call, then reading the
 * alarm back), so as many chains as the quota allows calls a second stay within it.
 */
export function alarmPace(account: AccountQuotas = {}): number {
  return Math.max(1, Math.floor(allowed(RuntimeQuotas.putMetricAlarm, '', account) * ALARM_CREATE_SECONDS));
}

/** The least time CloudFormation spends on one alarm: an assumption, named wherever it is used. */
export const ALARM_CREATE_SECONDS = 1;

export interface DeployEstimate {
  readonly region: string;
  readonly alarms: number;
  readonly inFlight: number;
  /** Alarms created a second: the chains' pace, or the quota, whichever is lower. */
  readonly perSecond: number;
  readonly seconds: number;
  readonly message: string;
}

/** `1 h 24 min`, `7 min`, `40 s`. */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  const minutes = Math.ceil(s / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** How long creating the fleet's alarms takes at the least, per Region, at the pace the stacks allow. */
export function deployEstimates(alarmsByRegion: ReadonlyMap<string, number>, account: AccountQuotas = {}): DeployEstimate[] {
  const inFlight = alarmPace(account);
  return [...alarmsByRegion]
    .filter(([, alarms]) => alarms > 0)
    .map(([region, alarms]) => {
      const perSecond = Math.min(inFlight / ALARM_CREATE_SECONDS, allowed(RuntimeQuotas.putMetricAlarm, region, account));
      const seconds = alarms / perSecond;
      return {
        region,
        alarms,
        inFlight,
        perSecond,
        seconds,
        message:
          `mcp-canary: the first deploy creates ${alarms.toLocaleString('en-US')} CloudWatch alarms in ${region}, at most ${inFlight} at a time ` +
          `(PutMetricAlarm allows ${figure(allowed(RuntimeQuotas.putMetricAlarm, region, account))} calls a second): at least ${duration(seconds)} of alarm creation, ` +
          'with the stacks that hold them deploying one after another.',
      };
    });
}
