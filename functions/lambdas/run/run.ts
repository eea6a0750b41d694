/**
 * One scheduled run: for every target of the payload, concurrently, claim its period in the run ledger
 * (so a duplicate delivery, by whichever schedule, counts nothing), read its credentials, judge it under a hard deadline,
 * log its verdict at once and hand its datapoint to the wave publisher, which sends it to the home
 * region within a second or so (a slow target delays only itself). Nothing here throws because a
 * target is down, slow or misconfigured: each target ends in a Verdict, and each Verdict reaches the
 * log and the metrics. Keeps no state between runs (the secret cache lives in the SecretReader the
 * handler owns; the ledger lives in DynamoDB).
 *
 * The canary's own faults are no verdict (functions/base/common/own-faults.ts): a claim the ledger could
 * not record (the run goes on: ledger.ts says why), a datapoint the home region did not accept, a credential
 * read that failed (a target with no credentials at hand is skipped, not judged). Each is logged, returned
 * in the summary's `faults`, and written once per invocation as the `CanaryFaults` metric of this region,
 * which the canary owner's alarms here read.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Target } from '../../base/config/schema/target.ts';
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import { notJudged } from '../../engine/judge/gateway.ts';
import { judgeAll } from '../../engine/judge/judge.ts';
import type { PublishOptions } from '../../io/publish/metrics.ts';
import {
  LEDGER_FAULT_MESSAGE,
  PUBLISH_FAILED_MESSAGE,
  rateSlug,
  RUN_SKIPPED_MESSAGE,
  type LedgerFaultRecord,
  type PublishFailedRecord,
  type RunRecord,
  type RunSkippedRecord,
} from '../../base/common/run-record.ts';
import { WavePublisher } from '../../io/publish/waves.ts';
import { oneLine, Redactor, secretsOf } from '../../base/common/redact.ts';
import { newTraceId } from '../../base/common/trace.ts';
import { canaryVerdict, FailureClass, Outcome, type FailureClass as Failure, type Verdict } from '../../base/common/verdict.ts';
import {
  JUDGE_GRACE_MS,
  PUBLISH_RESERVE_MS,
  RETURN_MARGIN_MS,
  SECRET_READ_TIMEOUT_MS,
  lambdaTimeoutSeconds,
  runBudgetMs,
} from '../../base/config/schema/budget.ts';
import type { OAuthSecrets } from '../../base/config/load/oauth-secrets.ts';
import type { Reach } from '../../base/common/run-context.ts';
import { withDeadline } from './deadline.ts';
import { periodSecondsOf, readEvent, scheduledPeriodStart, type PlannedTarget } from './event.ts';
import { EVERY_DELIVERY_RUNS, type RunLedger } from './ledger.ts';
import { emfFaults, happened, type FaultSink } from './faults.ts';
import { isCanaryError } from '../../base/common/errors.ts';
import type { OwnFaultCounts } from '../../base/common/own-faults.ts';
import { logRecord, runRecord, stdoutLine, type LogLine } from './log.ts';
import type { ResolvedHeaders } from '../../io/secrets/reader.ts';
import type { FetchMiddleware } from '../../base/common/run-context.ts';
import type { RequestLog } from '../../io/telemetry/requests.ts';
import type { TelemetryBatch } from '../../io/telemetry/batch.ts';

export interface RunDeps {
  /** The run record's `probeRegion`: the region the function runs in. */
  readonly probeRegion: string;
  readonly homeRegion: string;
  readonly namespace: string;
  /** A client for the home region. */
  readonly cloudWatch: CloudWatchClient;
  /** `drainFaults`: the credential reads that failed since the last call (the `credentials` own fault). */
  readonly secrets: { resolve(target: Target): Promise<ResolvedHeaders>; drainFaults?(): number };
  /** Time left in the invocation (`context.getRemainingTimeInMillis()`). @default - the run budget alone */
  readonly remainingMs?: number;
  /** The target's verdict, or a gateway's and then its backends'. @default - the probe engine's `judgeAll` */
  readonly judge?: Judge;
  /** @default - one line on stdout */
  readonly log?: LogLine;
  /** Wall clock in ms. @default - Date.now */
  readonly now?: () => number;
  /** Backoff hooks for tests. @default - real timers */
  readonly publish?: Pick<PublishOptions, 'sleep' | 'random'> & { readonly windowMs?: number };
  /** Counts each scheduled run once per period. @default - EVERY_DELIVERY_RUNS (no ledger) */
  readonly ledger?: RunLedger;
  /** This invocation's OpenTelemetry export (functions/io/telemetry): off when absent. */
  readonly telemetry?: TelemetryBatch | undefined;
  /** Where the canary's own faults go. @default - the `CanaryFaults` metric of this region, as EMF on stdout */
  readonly faults?: FaultSink;
}

/** What the handler returns: enough to read in the console, nothing secret. */
export interface RunSummary {
  /** The targets this delivery judged. */
  readonly verdicts: ReadonlyArray<{ readonly target: string; readonly outcome: Outcome; readonly failure: Failure | null }>;
  /** This delivery judged something and every datapoint it had was accepted. */
  readonly published: boolean;
  /** Targets this delivery did not judge, by why: another delivery holds their claim, or their credentials could not be read. */
  readonly skipped?: Readonly<Partial<Record<SkipReason, readonly string[]>>>;
  /** The canary's own faults this delivery met (only those that happened), as the `CanaryFaults` metric counts them. */
  readonly faults?: OwnFaultCounts;
}

type SkipReason = RunSkippedRecord['reason'];

type Judge = (
  target: Target,
  oauthSecrets?: OAuthSecrets,
  reach?: Reach,
  observe?: FetchMiddleware,
) => Promise<Verdict | readonly Verdict[]>;

export async function run(event: unknown, deps: RunDeps): Promise<RunSummary> {
  const planned = readEvent(event);
  const now = deps.now ?? Date.now;
  const log = deps.log ?? stdoutLine;
  const started = now();
  const maxBudgetMs = Math.max(0, ...planned.map((p) => (p.valid ? p.target.budgetMs : 0)));
  const lambdaEndsAt = deps.remainingMs === undefined ? Infinity : started + deps.remainingMs - RETURN_MARGIN_MS;
  const deadlineAt = Math.min(started + runBudgetMs(maxBudgetMs), lambdaEndsAt);
  const scheduledFor = scheduledPeriodStart(event, started);
  // Secrets are read while the ledger claims are made, in the same window: a claim never costs budget.
  const secretsBy = new Map(planned.map((p) => [p, p.valid ? deps.secrets.resolve(p.target) : undefined]));
  for (const read of secretsBy.values()) read?.catch(() => undefined);
  const ctx: TargetContext = {
    deps,
    now,
    log,
    scheduledFor,
    judge: deps.judge ?? ((t, oauthSecrets, reach, observe) => judgeAll(t, { oauthSecrets, reach, observe })),
    secretsBy,
    secretsEndAt: started + SECRET_READ_TIMEOUT_MS + JUDGE_GRACE_MS,
    judgingEndsAt: deadlineAt - PUBLISH_RESERVE_MS,
    lambdaCutsFirst: lambdaEndsAt < started + runBudgetMs(maxBudgetMs),
    timeoutHint: lambdaTimeoutSeconds(maxBudgetMs),
    late: { count: 0 },
  };
  const publisher = new WavePublisher(deps.cloudWatch, {
    namespace: deps.namespace,
    rate: rateSlug(periodSecondsOf(event)),
    deadlineAt,
    now,
    ...deps.publish,
    expected: planned.filter(counted).reduce((n, p) => n + verdictsOf(p), 0),
  });
  const ledger = deps.ledger ?? EVERY_DELIVERY_RUNS;
  const skipped = new Map<SkipReason, Array<{ target: string; error?: string }>>();

  // Each target claims its own (period, target): which schedule carries it does not matter (ledger.ts).
  let ledgerFaults = 0;
  const skip = (reason: SkipReason, target: string, error?: string) => {
    const list = skipped.get(reason) ?? [];
    list.push({ target, error });
    skipped.set(reason, list);
  };
  // A gateway's run ends in several records (its own, then one per backend): one claim covers them all.
  const skipAll = (p: PlannedTarget) => {
    for (let i = 0; i < verdictsOf(p); i++) publisher.skip();
  };
  const judged = await Promise.all(
    planned.map(async (p): Promise<RunRecord[] | undefined> => {
      // A target without a usable name publishes nothing, so it has nothing to count twice.
      const requests = p.valid ? deps.telemetry?.requestLog(p.target.healthUrl) : undefined;
      if (!counted(p)) {
        const records = await judgeOne(p, ctx, requests);
        if ('unjudged' in records) return undefined;
        for (const record of records) deps.telemetry?.add(record, requests);
        return records;
      }
      const outcome = await ledger.once({ period: scheduledFor.toISOString(), target: nameOf(p) }, async () => {
        const records = await judgeOne(p, ctx, requests);
        if ('unjudged' in records) {
          skipAll(p);
          return records;
        }
        for (const record of records) {
          publisher.add(record);
          // Inside the claim: a duplicate delivery exports nothing twice.
          deps.telemetry?.add(record, requests);
        }
        return records;
      });
      if (outcome.kind === 'duplicate') {
        skipAll(p);
        skip('duplicate', nameOf(p), outcome.claimedAt);
        return undefined;
      }
      if (outcome.ledgerError !== undefined) {
        ledgerFaults++;
        logRecord(log, ledgerFault(deps, scheduledFor, nameOf(p), outcome.ledgerError), new Redactor([]));
      }
      if ('unjudged' in outcome.value) {
        skip('credentials', nameOf(p), outcome.value.unjudged);
        return undefined;
      }
      return outcome.value;
    }),
  );
  for (const [reason, targets] of skipped) logRecord(log, skipRecord(deps, scheduledFor, reason, targets), new Redactor([]));

  const ran = judged.filter((r): r is RunRecord[] => r !== undefined).flat();
  // The export runs beside the publish, never before it, in what is left of the run's deadline; it never rejects.
  const [result] = await Promise.all([publisher.settle(), deps.telemetry?.flush(deadlineAt - ctx.now())]);
  if (!result.published) {
    const failure: PublishFailedRecord = {
      message: PUBLISH_FAILED_MESSAGE,
      homeRegion: deps.homeRegion,
      namespace: deps.namespace,
      probeRegion: deps.probeRegion,
      targets: result.failedTargets,
      attempts: result.attempts,
      errors: result.errors,
    };
    logRecord(ctx.log, failure, new Redactor([]));
  }
  const faults = happened({
    ledger: ledgerFaults,
    publish: result.failedTargets.length,
    credentials: (deps.secrets.drainFaults?.() ?? 0) + ctx.late.count,
  });
  if (faults) (deps.faults ?? emfFaults(deps.namespace))(faults);
  return {
    verdicts: ran.map(({ verdict }) => ({ target: verdict.target, outcome: verdict.outcome, failure: verdict.failure })),
    published: ran.length > 0 && result.published,
    ...(skipped.size > 0 && { skipped: Object.fromEntries([...skipped].map(([reason, ts]) => [reason, ts.map((t) => t.target).sort()])) }),
    ...(faults && { faults }),
  };
}

/** How many verdicts a target's run ends in: its own, and one per backend of a gateway. */
function verdictsOf(p: PlannedTarget): number {
  return 1 + (p.valid ? (p.target.backends?.length ?? 0) : 0);
}

/** Whether a target's run is counted (published), and so claimed in the ledger. */
function counted(p: PlannedTarget): boolean {
  return p.valid || p.publishable;
}

function skipRecord(
  deps: RunDeps,
  scheduledFor: Date,
  reason: SkipReason,
  targets: ReadonlyArray<{ target: string; error?: string }>,
): RunSkippedRecord {
  const first = targets.find((t) => t.error)?.error;
  return {
    message: RUN_SKIPPED_MESSAGE,
    probeRegion: deps.probeRegion,
    scheduledFor: scheduledFor.toISOString(),
    targets: targets.map((t) => t.target).sort(),
    reason,
    detail:
      reason === 'credentials'
        ? `not judged: the credentials could not be read for now and no earlier value was at hand (${first}). The canary's own fault, not a verdict: the canary owner's credentials alarm in ${deps.probeRegion} tells`
        : `another delivery of this scheduled run claimed it${first ? ` at ${first}` : ''}: nothing judged or published twice`,
  };
}

/** Logged when the ledger could not record a target's claim and the run went on without it (fail-open, ledger.ts). */
function ledgerFault(deps: RunDeps, scheduledFor: Date, target: string, error: string): LedgerFaultRecord {
  return {
    message: LEDGER_FAULT_MESSAGE,
    probeRegion: deps.probeRegion,
    scheduledFor: scheduledFor.toISOString(),
    target,
    detail: `judged and published without a claim: the run ledger could not record it (${error}). A duplicate delivery of this run would count twice; the canary owner's ledger alarm in ${deps.probeRegion} tells`,
  };
}

function nameOf(p: PlannedTarget): string {
  return p.valid ? p.target.name : p.name;
}

interface TargetContext {
  readonly deps: RunDeps;
  readonly now: () => number;
  readonly log: LogLine;
  /** The period the run was scheduled for: its datapoints' timestamp. */
  readonly scheduledFor: Date;
  readonly judge: Judge;
  /** Each valid target's credentials, being read since the run started. */
  readonly secretsBy: ReadonlyMap<PlannedTarget, Promise<ResolvedHeaders> | undefined>;
  /** No waiting for credentials past this (wall ms). */
  readonly secretsEndAt: number;
  /** No judging past this (wall ms): the rest is for publishing. */
  readonly judgingEndsAt: number;
  /** The invocation ends before the run budget would: the function's timeout is too short. */
  readonly lambdaCutsFirst: boolean;
  readonly timeoutHint: number;
  /** Targets whose credentials were not read by `secretsEndAt` (counted as a credentials fault: the read may still be in flight). */
  readonly late: { count: number };
}

/** A target the run could not judge through its own fault: no verdict, no datapoint (`unjudged`: why, in one line). */
interface Unjudged {
  readonly unjudged: string;
}

/** Never rejects: every path ends in a logged record, or in a target the canary could not judge (its credentials). */
async function judgeOne(p: PlannedTarget, ctx: TargetContext, requests?: RequestLog): Promise<RunRecord[] | Unjudged> {
  const { now } = ctx;
  const started = now();
  const elapsed = () => Math.round(now() - started);
  // Query values and userinfo too: an engine crash's message may quote the target's URL.
  let redactor = new Redactor(p.valid ? secretsOf(p.target) : p.headerValues);
  let verdict: Verdict | readonly Verdict[] | Unjudged;
  if (!p.valid) {
    verdict = canaryVerdict(p.name, Outcome.inconclusive, null, p.detail, 0, newTraceId());
  } else {
    const target = p.target;
    verdict = await (async (): Promise<Verdict | readonly Verdict[] | Unjudged> => {
      const secrets = await withDeadline(ctx.secretsBy.get(p)!, Math.min(ctx.secretsEndAt, ctx.judgingEndsAt) - now());
      if (secrets.kind === 'late') {
        ctx.late.count++;
        return { unjudged: `headerSecrets: not read within ${elapsed()} ms` };
      }
      // A store that did not answer usably is no verdict: the run cannot be judged, and the owner hears (own-faults.ts).
      if (secrets.kind === 'error' && isCanaryError(secrets.error, CanaryErrorCode.secret) && secrets.error.data.unavailable) {
        return { unjudged: oneLine(secrets.error.message, 300) };
      }
      if (secrets.kind === 'error') return crashed(target.name, secrets.error, elapsed());
      redactor = new Redactor(
        secretsOf({ ...target, headers: secrets.value.headers, url: secrets.value.url, extra: secrets.value.secretValues }),
      );

      const ownCutMs = target.budgetMs + JUDGE_GRACE_MS;
      const remainingMs = ctx.judgingEndsAt - now();
      const judged = await withDeadline(
        ctx.judge(
          { ...target, headers: secrets.value.headers, url: secrets.value.url },
          secrets.value.oauth,
          secrets.value.reach,
          requests?.middleware,
        ),
        Math.min(ownCutMs, remainingMs),
      );
      if (judged.kind === 'value') return judged.value;
      if (judged.kind === 'error') return crashed(target.name, judged.error, elapsed());
      if (ownCutMs <= remainingMs || !ctx.lambdaCutsFirst) {
        // The target held the run past its own budget: that is the target's timeout, not the canary's.
        return canaryVerdict(
          target.name,
          Outcome.failed,
          FailureClass.timeout,
          `no verdict within the run budget: budgetMs ${target.budgetMs} + ${JUDGE_GRACE_MS} ms grace; the endpoint held the run open`,
          elapsed(),
          newTraceId(),
        );
      }
      return canaryVerdict(
        target.name,
        Outcome.inconclusive,
        null,
        `the function's timeout ended the run after ${elapsed()} ms, before budgetMs ${target.budgetMs}. Raise the Lambda timeout to at least ${ctx.timeoutHint} s.`,
        elapsed(),
        newTraceId(),
      );
    })();
  }
  if ('unjudged' in verdict) return { unjudged: redactor.text(verdict.unjudged) };
  return withBackends(p, verdict).map((v) =>
    logRecord(ctx.log, runRecord(v, ctx.deps.probeRegion, new Date(started), ctx.scheduledFor), redactor),
  );
}

/**
 * A gateway's verdict and then each backend's. When the run ended in the gateway's verdict alone (a crash,
 * the run cut at its budget), each backend is not judged, naming the gateway's end: it still gets its
 * datapoint, so its alarm neither breaches nor goes missing, and only the gateway's pages.
 */
function withBackends(p: PlannedTarget, judged: Verdict | readonly Verdict[]): readonly Verdict[] {
  const verdicts = 'target' in judged ? [judged as Verdict] : (judged as readonly Verdict[]);
  if (!p.valid || !p.target.backends || verdicts.length > 1) return verdicts;
  return [verdicts[0]!, ...p.target.backends.map((b) => notJudged(p.target, b.name, verdicts[0]!))];
}

/** A secret that cannot be read is the canary's fault; so is a bug that made the engine throw. */
function crashed(name: string, error: unknown, durationMs: number): Verdict {
  const detail =
    error instanceof CanaryError
      ? error.message
      : `the canary itself failed judging this target (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}); this is a canary bug, not the endpoint`;
  return canaryVerdict(name, Outcome.inconclusive, null, oneLine(detail, 500), durationMs, newTraceId());
}
