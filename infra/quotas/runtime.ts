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
import type { AfterDeploy, RuntimeLoad } from './runtime-load.ts';

/** Quotas this account has had raised, by id: the figure AWS granted (for every Region the fleet uses). */
export type AccountQuotas = Readonly<Partial<Record<RuntimeQuotaId, number>>>;

/** The CDK context key the default app reads `accountQuotas` from (`cdk synth -c mcp-canary:account-quotas='{…}'`, or cdk.json). */
export const ACCOUNT_QUOTAS_CONTEXT = 'mcp-canary:account-quotas';

/** Not raised by a request: our own delivery setting, and a quota AWS does not adjust. */
const NOT_ACCOUNT_QUOTAS: readonly RuntimeQuotaId[] = ['sns-page-deliveries', 'secrets-manager-batch-get-secret-value'];

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

/** 82, 58.6, 0.033: a steady read rate can be a small fraction. */
const figure = (n: number) => (Number.isInteger(n) || n >= 10 ? Math.round(n * 10) / 10 : Number(n.toPrecision(2))).toLocaleString('en-US');

/** Every load over what its quota allows; none means the fleet runs within every default (or granted) quota. */
export function checkRuntime(loads: readonly RuntimeLoad[], account: AccountQuotas = {}): RuntimeFinding[] {
  return loads.flatMap((l) => {
    const limit = allowed(l.quota, l.region, account);
    if (l.peak <= limit) return [];
    const granted = account[l.quota.id] !== undefined ? ' (your accountQuotas figure)' : '';
    // Just over, said so: never "runs at 40 … the quota is 40".
    const peak = figure(l.peak) === figure(limit) ? String(Number(l.peak.toPrecision(6))) : figure(l.peak);
    const message =
      `mcp-canary: ${l.quota.service} ${l.quota.name} in ${l.region} ${l.afterDeploy ? 'runs at' : 'peaks at'} ${peak} ${l.quota.unit}: ${l.why}; ` +
      `the quota is ${figure(limit)}${granted} (${l.quota.source}).` +
      (l.afterDeploy ? ` ${afterDeployWords(l.afterDeploy, limit)}` : '') +
      ` To stay under it: ${l.quota.raise}` +
      (NOT_ACCOUNT_QUOTAS.includes(l.quota.id) ? '.' : `; then tell synth the granted figure (accountQuotas "${l.quota.id}").`);
    return [{ quota: l.quota, region: l.region, peak: l.peak, limit, message }];
  });
}

/**
 * What the first firing after a deploy does to a credential-read quota, in words: its calls go out at once
 * (the run does not spread them, and nothing promises that the schedules do), so over the quota some are
 * throttled. The run's clients try each call twice; a target whose read still fails has no value at hand,
 * is not judged that run, and counts as the canary's own credentials fault (its owner alarm needs 2 minutes
 * in 3, so one minute does not page). The cache's jitter spreads the containers' next reads.
 */
function afterDeployWords(a: AfterDeploy, limit: number): string {
  const words = `${a.why[0]!.toUpperCase()}${a.why.slice(1)}`;
  if (a.calls <= limit) return `${words}, within it.`;
  return (
    `${words}: more than the quota allows in a second if the schedules fire together, so some are throttled, tried once more, ` +
    'and a target whose read still fails is not judged that minute (the owner hears through <fleet>/canary/run-credentials only if it lasts 2 minutes in 3).'
  );
}

/**
 * Credential-read quotas whose steady rate is within the quota but whose first firing after a deploy is not:
 * one informational line each (no warning: the fleet runs within the quota once its containers are warm).
 */
export function afterDeployNotes(loads: readonly RuntimeLoad[], account: AccountQuotas = {}): Array<{ region: string; message: string }> {
  return loads.flatMap((l) => {
    const limit = allowed(l.quota, l.region, account);
    if (!l.afterDeploy || l.peak > limit || l.afterDeploy.calls <= limit) return [];
    const message =
      `mcp-canary: ${l.quota.service} ${l.quota.name} in ${l.region} runs at ${figure(l.peak)} ${l.quota.unit}, steady, within its quota of ${figure(limit)} (${l.quota.source}). ` +
      afterDeployWords(l.afterDeploy, limit);
    return [{ region: l.region, message }];
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
