/**
 * One scheduled run: for every target of the payload, concurrently, read its credentials, judge it
 * under a hard deadline and log its verdict at once; then publish all verdicts in one PutMetricData
 * (per 1000 datums) to the home region. Nothing here throws because a target is down, slow or
 * misconfigured: each target ends in a Verdict, and each Verdict reaches the log and the metrics.
 * Keeps no state between runs (the secret cache lives in the SecretReader the handler owns).
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { OAuthSecrets } from '../auth/token.ts';
import type { Target } from '../config/target.ts';
import { CanaryError } from '../errors.ts';
import { judge as judgeTarget } from '../probe/judge.ts';
import { publishRuns, type PublishOptions } from '../publish/metrics.ts';
import type { RunRecord } from '../publish/schema.ts';
import { oneLine, Redactor, secretsOf } from '../redact.ts';
import { newTraceId } from '../trace.ts';
import { canaryVerdict, FailureClass, Outcome, type FailureClass as Failure, type Verdict } from '../verdict.ts';
import { JUDGE_GRACE_MS, PUBLISH_RESERVE_MS, RETURN_MARGIN_MS, lambdaTimeoutSeconds, runBudgetMs, withDeadline } from './budget.ts';
import { readEvent, scheduledPeriodStart, type PlannedTarget } from './event.ts';
import { logRecord, PUBLISH_FAILED_MESSAGE, runRecord, stdoutLine, type LogLine, type PublishFailedRecord } from './log.ts';
import { SECRET_READ_TIMEOUT_MS, type ResolvedHeaders } from './secrets.ts';

export interface RunDeps {
  /** The run record's `probeRegion`: the region the function runs in. */
  readonly probeRegion: string;
  readonly homeRegion: string;
  readonly namespace: string;
  /** A client for the home region. */
  readonly cloudWatch: CloudWatchClient;
  readonly secrets: { resolve(target: Target): Promise<ResolvedHeaders> };
  /** Time left in the invocation (`context.getRemainingTimeInMillis()`). @default - the run budget alone */
  readonly remainingMs?: number;
  /** @default - the probe engine's `judge` */
  readonly judge?: (target: Target, oauthSecrets?: OAuthSecrets) => Promise<Verdict>;
  /** @default - one line on stdout */
  readonly log?: LogLine;
  /** Wall clock in ms. @default - Date.now */
  readonly now?: () => number;
  /** Backoff hooks for tests. @default - real timers */
  readonly publish?: Pick<PublishOptions, 'sleep' | 'random'>;
}

/** What the handler returns: enough to read in the console, nothing secret. */
export interface RunSummary {
  readonly verdicts: ReadonlyArray<{ readonly target: string; readonly outcome: Outcome; readonly failure: Failure | null }>;
  readonly published: boolean;
}

interface Judged {
  readonly record: RunRecord;
  readonly publish: boolean;
}

export async function run(event: unknown, deps: RunDeps): Promise<RunSummary> {
  const planned = readEvent(event);
  const now = deps.now ?? Date.now;
  const log = deps.log ?? stdoutLine;
  const started = now();
  const maxBudgetMs = Math.max(0, ...planned.map((p) => (p.valid ? p.target.budgetMs : 0)));
  const lambdaEndsAt = deps.remainingMs === undefined ? Infinity : started + deps.remainingMs - RETURN_MARGIN_MS;
  const deadlineAt = Math.min(started + runBudgetMs(maxBudgetMs), lambdaEndsAt);
  const ctx: TargetContext = {
    deps,
    now,
    log,
    scheduledFor: scheduledPeriodStart(event, started),
    judge: deps.judge ?? ((t, oauthSecrets) => judgeTarget(t, { oauthSecrets })),
    judgingEndsAt: deadlineAt - PUBLISH_RESERVE_MS,
    lambdaCutsFirst: lambdaEndsAt < started + runBudgetMs(maxBudgetMs),
    timeoutHint: lambdaTimeoutSeconds(maxBudgetMs),
  };

  const judged = await Promise.all(planned.map((p) => judgeOne(p, ctx)));

  const toPublish = judged.filter((j) => j.publish).map((j) => j.record);
  let published = true;
  if (toPublish.length > 0) {
    const result = await publishRuns(deps.cloudWatch, toPublish, { namespace: deps.namespace, deadlineAt, now, ...deps.publish });
    published = result.published;
    if (!published) {
      const failure: PublishFailedRecord = {
        message: PUBLISH_FAILED_MESSAGE,
        homeRegion: deps.homeRegion,
        namespace: deps.namespace,
        probeRegion: deps.probeRegion,
        targets: toPublish.map((r) => r.target),
        attempts: result.attempts,
        errors: result.errors,
      };
      logRecord(log, failure, new Redactor([]));
    }
  }
  return {
    verdicts: judged.map(({ record: { verdict } }) => ({ target: verdict.target, outcome: verdict.outcome, failure: verdict.failure })),
    published,
  };
}

interface TargetContext {
  readonly deps: RunDeps;
  readonly now: () => number;
  readonly log: LogLine;
  /** The period the run was scheduled for: its datapoints' timestamp. */
  readonly scheduledFor: Date;
  readonly judge: (target: Target, oauthSecrets?: OAuthSecrets) => Promise<Verdict>;
  /** No judging past this (wall ms): the rest is for publishing. */
  readonly judgingEndsAt: number;
  /** The invocation ends before the run budget would: the function's timeout is too short. */
  readonly lambdaCutsFirst: boolean;
  readonly timeoutHint: number;
}

/** Never rejects: every path ends in a logged record. */
async function judgeOne(p: PlannedTarget, ctx: TargetContext): Promise<Judged> {
  const { now } = ctx;
  const started = now();
  const elapsed = () => Math.round(now() - started);
  // Query values and userinfo too: an engine crash's message may quote the target's URL.
  let redactor = new Redactor(p.valid ? secretsOf(p.target) : p.headerValues);
  let verdict: Verdict;
  if (!p.valid) {
    verdict = canaryVerdict(p.name, Outcome.inconclusive, null, p.detail, 0, newTraceId());
  } else {
    const target = p.target;
    verdict = await (async (): Promise<Verdict> => {
      const secrets = await withDeadline(
        ctx.deps.secrets.resolve(target),
        Math.min(SECRET_READ_TIMEOUT_MS + JUDGE_GRACE_MS, ctx.judgingEndsAt - now()),
      );
      if (secrets.kind === 'late') {
        return canaryVerdict(
          target.name,
          Outcome.inconclusive,
          null,
          `headerSecrets: the credentials were not read in time (${elapsed()} ms). Check the function's network path to Secrets Manager / SSM.`,
          elapsed(),
          newTraceId(),
        );
      }
      if (secrets.kind === 'error') return crashed(target.name, secrets.error, elapsed());
      redactor = new Redactor(secretsOf({ ...target, headers: secrets.value.headers, extra: secrets.value.secretValues }));

      const ownCutMs = target.budgetMs + JUDGE_GRACE_MS;
      const leftMs = ctx.judgingEndsAt - now();
      const judged = await withDeadline(
        ctx.judge({ ...target, headers: secrets.value.headers }, secrets.value.oauth),
        Math.min(ownCutMs, leftMs),
      );
      if (judged.kind === 'value') return judged.value;
      if (judged.kind === 'error') return crashed(target.name, judged.error, elapsed());
      if (ownCutMs <= leftMs || !ctx.lambdaCutsFirst) {
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
  const record = logRecord(ctx.log, runRecord(verdict, ctx.deps.probeRegion, new Date(started), ctx.scheduledFor), redactor);
  return { record, publish: p.valid || p.publishable };
}

/** A secret that cannot be read is the canary's fault; so is a bug that made the engine throw. */
function crashed(name: string, error: unknown, durationMs: number): Verdict {
  const detail =
    error instanceof CanaryError
      ? error.message
      : `the canary itself failed judging this target (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}); this is a canary bug, not the endpoint`;
  return canaryVerdict(name, Outcome.inconclusive, null, oneLine(detail, 500), durationMs, newTraceId());
}
