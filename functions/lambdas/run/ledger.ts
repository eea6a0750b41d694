/**
 * The run ledger: one scheduled run of one target counts once in its period, whatever AWS delivers twice
 * and whichever schedule carries it. Scheduler delivers at least once, and Lambda's asynchronous queue
 * may hand the same event to the function more than once "even if no error occurs" (the Lambda guide,
 * "How Lambda handles errors and retries with asynchronous invocation"). The alarms count regions per
 * period by Sum and SampleCount, so a second delivery that judged and published again would count its
 * region twice: a duplicated healthy region settles a period "not breaching" and resolves a page
 * mid-outage; a duplicated failing region reaches the quorum alone.
 *
 * So before judging a target, a run claims `(period, target)` in a DynamoDB table, with Powertools for
 * AWS Lambda's Idempotency utility (a conditional PutItem, a TTL attribute, an in-progress and a
 * completed state). The claim is per target, not per schedule: infra/plan packs targets into schedules,
 * and a deploy that adds or removes a target can change every schedule's target set while the old and
 * the new schedules both fire for a while (CloudFormation replaces them stack by stack). A key made of
 * the whole target set would differ between the old and the new payload and count every target twice;
 * a key per target dedupes whichever payload carries it. The key prefix is fixed (not the function's
 * name), so a target that moves to another function of the region is still the same run.
 *
 * Whoever claims a target first judges it; every other delivery of that period skips that target and
 * returns normally (a throw would dead-letter it and alarm the canary owner for a run that did happen):
 * - a duplicate while the first is still running sees IN_PROGRESS, and does not wait for it;
 * - a duplicate after it sees COMPLETED;
 * - a first run that crashed (timeout, out of memory) keeps its claim: it may have published the
 *   datapoint already, so no later delivery may run that period again. The claim holds for the
 *   record's life, which is far longer than any delivery can be late (Lambda drops events older than
 *   the function's maximum event age, 60 s);
 * - a claim that cannot be written (DynamoDB unreachable, throttled past its retries, or too slow) is not
 *   run: without a claim nothing can tell it from a duplicate. That region misses one run, which the
 *   alarms are built to tolerate, and a region that keeps missing tells the canary owner (the dead-man);
 * - an SDK retry of our own claim whose first attempt was stored (the answer lost to a timeout or a reset)
 *   finds our own claim, not another delivery's: each claim carries a token of its delivery (Powertools'
 *   payload validation hash), so the retry knows the record is its own and runs. Without the token it
 *   read as "another delivery is running": nobody judged the target that period, and the log said a
 *   duplicate was running when none was.
 * The key is the period, not the delivery: a manual test invoke in the same minute as the scheduled run
 * of the same target is the same run.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyRecordStatus,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { oneLine } from '../../base/common/redact.ts';
import { awsFailure } from '../../base/common/aws-errors.ts';
import { LEDGER_KEY_ATTRIBUTE, LEDGER_TTL_ATTRIBUTE } from '../../base/common/run-record.ts';

/** How long a claim (and its record) lives: a TTL far past the latest any duplicate can arrive. */
export const LEDGER_RECORD_SECONDS = 3600;
/**
 * A claim gets this long; past it the run is not counted. It runs beside the secret reads, inside their
 * 5 s window (SECRET_READ_TIMEOUT_MS), so it never shortens a target's budget.
 */
export const LEDGER_CLAIM_TIMEOUT_MS = 3_000;

/** What one scheduled run of one target is, for counting: its period and the target's name. */
export interface RunIdentity {
  /** ISO 8601 start of the scheduled period. */
  readonly period: string;
  readonly target: string;
}

/** The claims' key prefix: the same for every function of the fleet, so the key is `(period, target)` alone. */
export const LEDGER_KEY_PREFIX = 'mcp-canary-run';

export type LedgerOutcome<T> =
  /** This delivery holds the claim and ran. `ledgerError`: the completion could not be recorded (the claim still holds). */
  | { readonly kind: 'ran'; readonly value: T; readonly ledgerError?: string }
  /** Another delivery holds the claim: still running, or done. */
  | { readonly kind: 'duplicate'; readonly state: 'running' | 'done' }
  /** No claim could be written: not run. */
  | { readonly kind: 'unclaimed'; readonly error: string };

export interface RunLedger {
  /** Runs `work` only if this delivery claims `identity` (one target's period) first. Never rejects, unless `work` does. */
  once<T>(identity: RunIdentity, work: () => Promise<T>): Promise<LedgerOutcome<T>>;
}

/** No ledger: every delivery runs (tests, and a function deployed without the table). */
export const EVERY_DELIVERY_RUNS: RunLedger = {
  async once(_identity, work) {
    return { kind: 'ran', value: await work() };
  },
};

export interface DynamoRunLedgerOptions {
  readonly tableName: string;
  /** A client for the probe region, with short timeouts (the handler builds it). */
  readonly client: DynamoDBClient;
  /** @default - LEDGER_CLAIM_TIMEOUT_MS */
  readonly claimTimeoutMs?: number;
}

/** What is claimed: the run, and a token of this delivery (stored as the record's validation hash). */
interface Claim extends RunIdentity {
  readonly delivery: string;
}

/** What the completed record stores: only that the run happened (the summary would cost write units). */
const DONE = { done: true } as const;

export function dynamoRunLedger(opts: DynamoRunLedgerOptions): RunLedger {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: opts.tableName,
    awsSdkV3Client: opts.client,
    keyAttr: LEDGER_KEY_ATTRIBUTE,
    expiryAttr: LEDGER_TTL_ATTRIBUTE,
  });
  const config = new IdempotencyConfig({
    expiresAfterSeconds: LEDGER_RECORD_SECONDS,
    // The key is the run alone (the same JSON the key hashed before the token existed, so records of the
    // previous release still dedupe); the token only tells whose claim a record is.
    eventKeyJmesPath: '{period: period, target: target}',
    throwOnNoIdempotencyKey: true,
    payloadValidationJmesPath: 'delivery',
  });
  // Powertools lets an IN_PROGRESS record be taken over once the first run's remaining time has passed.
  // A crashed run may already have published, so our claim lasts as long as the record.
  config.registerLambdaContext({ getRemainingTimeInMillis: () => LEDGER_RECORD_SECONDS * 1000 } as unknown as Parameters<
    IdempotencyConfig['registerLambdaContext']
  >[0]);
  const claimTimeoutMs = opts.claimTimeoutMs ?? LEDGER_CLAIM_TIMEOUT_MS;

  return {
    async once<T>(identity: RunIdentity, work: () => Promise<T>): Promise<LedgerOutcome<T>> {
      let abandoned = false;
      let ran: { value: T } | undefined;
      let failed: { error: unknown } | undefined;
      let started!: () => void;
      const claimed = new Promise<void>((resolve) => (started = resolve));
      const idempotent = makeIdempotent(
        async (_claim: Claim) => {
          // Claimed too late: the caller has already given up on this run.
          if (abandoned) return DONE;
          started();
          try {
            ran = { value: await work() };
          } catch (error) {
            failed = { error };
            throw error;
          }
          return DONE;
        },
        { persistenceStore, config, keyPrefix: LEDGER_KEY_PREFIX },
      );
      const settled = idempotent({ period: identity.period, target: identity.target, delivery: randomUUID() }).then(
        () => undefined,
        (error: unknown) => error,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), claimTimeoutMs)));
      const first = await Promise.race([claimed.then(() => 'claimed' as const), settled.then(() => 'settled' as const), late]);
      clearTimeout(timer);
      if (first === 'late') {
        abandoned = true;
        return { kind: 'unclaimed', error: `the claim took longer than ${claimTimeoutMs} ms` };
      }
      const error = await settled;
      if (failed) throw failed.error;
      if (ran)
        return error === undefined ? { kind: 'ran', value: ran.value } : { kind: 'ran', value: ran.value, ledgerError: describe(error) };
      if (error instanceof IdempotencyValidationError) {
        // Another delivery's claim (its token differs from ours), or one from before tokens existed.
        return { kind: 'duplicate', state: error.existingRecord?.getStatus() === IdempotencyRecordStatus.COMPLETED ? 'done' : 'running' };
      }
      if (error instanceof IdempotencyAlreadyInProgressError) {
        // Our own token: an attempt of this claim was stored and its answer lost. The claim is ours; run.
        // Its record stays IN_PROGRESS, which every other delivery reads as a duplicate for the record's life.
        return { kind: 'ran', value: await work() };
      }
      if (error === undefined) return { kind: 'duplicate', state: 'done' };
      return { kind: 'unclaimed', error: describe(error) };
    },
  };
}

/** Powertools' error, and the AWS error beneath it (DynamoDB's, read by the AWS error boundary): `IdempotencyPersistenceLayerError: … (ThrottlingException: …)`. */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return oneLine(String(e), 300);
  const aws = e.cause instanceof Error ? awsFailure(e.cause) : undefined;
  const cause = aws ? ` (${aws.name}: ${aws.message})` : '';
  return oneLine(`${e.name}: ${e.message}${cause}`, 300);
}
