/**
 * The run ledger: one scheduled run of one target counts once in its period, whatever AWS delivers twice
 * and whichever schedule carries it. Scheduler delivers at least once, and Lambda's asynchronous queue
 * may hand the same event to the function more than once "even if no error occurs" (the Lambda guide,
 * "How Lambda handles errors and retries with asynchronous invocation"). The alarms count regions per
 * period by Sum and SampleCount, so a second delivery that judged and published again would count its
 * region twice: a duplicated healthy region settles a period "not breaching" and resolves a page
 * mid-outage; a duplicated failing region reaches the quorum alone.
 *
 * So before judging a target, a run claims `(period, target)` in a DynamoDB table with one conditional
 * PutItem: written only if no live claim holds the key, a TTL attribute so the record goes by itself, and
 * a token of this delivery. That is the whole job. (The first release used Powertools' Idempotency
 * utility, which is built to wrap a handler and replay its result: it needed a faked Lambda context to
 * keep its in-progress claim from being taken over, a second write to record a result nobody reads, and
 * its payload-validation hash reused as the delivery token. One conditional write says the same.)
 *
 * The claim is per target, not per schedule: infra/plan packs targets into schedules, and a deploy that
 * adds or removes a target can change every schedule's target set while the old and the new schedules
 * both fire for a while. The key is the previous release's (`mcp-canary-run#` and the MD5 of
 * `{"period":…,"target":…}`, base64), so a claim it wrote still holds during the deploy.
 *
 * Whoever claims a target first judges it; every other delivery of that period skips it and returns
 * normally (a throw would dead-letter it and alarm the canary owner for a run that did happen). A claim is
 * never given back: a first run that crashed may have published its datapoint already.
 *
 * An SDK retry of our own claim whose first attempt was stored (the answer lost to a reset or a timeout)
 * finds a record with our own delivery token: the claim is ours, and the run goes on.
 *
 * **A ledger that cannot record the claim fails open**: the run is judged and published anyway, and the
 * ledger fault is counted (`ledgerError`, then the `ledger` own fault: the canary owner's alarm in this
 * region). The first release failed closed (no claim, no run), and that silenced the region for as long
 * as DynamoDB was throttled, unreachable or denied by an IAM or SCP change: a single-region fleet, or
 * two regions at quorum 2, could not page for any outage meanwhile, and only the home region's dead-man
 * heard, minutes later. Open, the price is a run counted twice only if a duplicate delivery (rare) lands
 * in the same period while the ledger is down, and the owner is told the ledger is down while it lasts.
 * A missed page during every ledger fault is the worse failure for a pager.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { oneLine } from '../../base/common/redact.ts';
import { awsFailure, awsWords } from '../../base/common/aws-errors.ts';
import { LEDGER_KEY_ATTRIBUTE, LEDGER_TTL_ATTRIBUTE } from '../../base/common/run-record.ts';

/** How long a claim (and its record) lives: a TTL far past the latest any duplicate can arrive. */
export const LEDGER_RECORD_SECONDS = 3600;
/**
 * A claim gets this long; past it the run goes on without one (fail-open). It runs beside the secret
 * reads, inside their 5 s window (SECRET_READ_TIMEOUT_MS), so it never shortens a target's budget.
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

/** The claim's own attributes beside the key and the TTL. */
const DELIVERY_ATTRIBUTE = 'delivery';
const CLAIMED_AT_ATTRIBUTE = 'claimedAt';

export type LedgerOutcome<T> =
  /** This delivery ran: it holds the claim, or (`ledgerError`) no claim could be recorded and it ran anyway. */
  | { readonly kind: 'ran'; readonly value: T; readonly ledgerError?: string }
  /** Another delivery holds the claim (`claimedAt`: when it claimed, when the record says). */
  | { readonly kind: 'duplicate'; readonly claimedAt?: string };

export interface RunLedger {
  /** Runs `work` unless another delivery claimed `identity` (one target's period) first. Never rejects, unless `work` does. */
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
  /** Wall clock in ms, for the TTL. @default - Date.now */
  readonly now?: () => number;
}

/** The record key of a run: the previous release's, so its claims still hold (see the file's comment). */
export function ledgerKey(identity: RunIdentity): string {
  const hash = createHash('md5')
    .update(JSON.stringify({ period: identity.period, target: identity.target }))
    .digest('base64');
  return `${LEDGER_KEY_PREFIX}#${hash}`;
}

type Claim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'duplicate'; readonly claimedAt?: string }
  | { readonly kind: 'fault'; readonly error: string };

export function dynamoRunLedger(opts: DynamoRunLedgerOptions): RunLedger {
  const claimTimeoutMs = opts.claimTimeoutMs ?? LEDGER_CLAIM_TIMEOUT_MS;
  const now = opts.now ?? Date.now;

  async function claim(identity: RunIdentity, delivery: string): Promise<Claim> {
    const nowSeconds = Math.floor(now() / 1000);
    try {
      await opts.client.send(
        new PutItemCommand({
          TableName: opts.tableName,
          Item: {
            [LEDGER_KEY_ATTRIBUTE]: { S: ledgerKey(identity) },
            [LEDGER_TTL_ATTRIBUTE]: { N: String(nowSeconds + LEDGER_RECORD_SECONDS) },
            [DELIVERY_ATTRIBUTE]: { S: delivery },
            [CLAIMED_AT_ATTRIBUTE]: { S: new Date(now()).toISOString() },
          },
          // A record past its TTL that DynamoDB has not deleted yet (it may take days) is no claim.
          ConditionExpression: 'attribute_not_exists(#id) OR #expiry < :now',
          ExpressionAttributeNames: { '#id': LEDGER_KEY_ATTRIBUTE, '#expiry': LEDGER_TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': { N: String(nowSeconds) } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { kind: 'claimed' };
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) return { kind: 'fault', error: describe(e) };
      // Our own token: an attempt of this claim was stored and its answer lost, and the SDK retried.
      if (e.Item?.[DELIVERY_ATTRIBUTE]?.S === delivery) return { kind: 'claimed' };
      const claimedAt = e.Item?.[CLAIMED_AT_ATTRIBUTE]?.S;
      return claimedAt ? { kind: 'duplicate', claimedAt } : { kind: 'duplicate' };
    }
  }

  return {
    async once<T>(identity: RunIdentity, work: () => Promise<T>): Promise<LedgerOutcome<T>> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Claim>(
        (resolve) =>
          (timer = setTimeout(() => resolve({ kind: 'fault', error: `the claim took longer than ${claimTimeoutMs} ms` }), claimTimeoutMs)),
      );
      const outcome = await Promise.race([claim(identity, randomUUID()), late]);
      clearTimeout(timer);
      if (outcome.kind === 'duplicate') return outcome;
      const value = await work();
      return outcome.kind === 'fault' ? { kind: 'ran', value, ledgerError: outcome.error } : { kind: 'ran', value };
    },
  };
}

/** DynamoDB's error, read by the AWS error boundary: `ProvisionedThroughputExceededException: …`. */
function describe(e: unknown): string {
  return oneLine(awsWords(awsFailure(e), 200), 300);
}
