/**
 * Credential reads batched per store: every read asked for in the same turn of the event loop (a run
 * resolves all its targets' references at once) goes out together, grouped by service and region, as
 * SSM `GetParameters` (10 names a call) and Secrets Manager `BatchGetSecretValue` (20 ids a call). A full
 * payload of 25 targets with one SSM credential each then costs 3 calls, not 25: SSM's default throughput
 * (40 TPS per account and region, shared by GetParameter and GetParameters and everything else in the
 * account) is the first runtime quota a large fleet meets, and every probe region reading a home-region
 * parameter by ARN spends the home region's.
 *
 * Hand-written because Powertools Parameters, which batches GetParameters too, reports a failed name of a
 * batch without the AWS error's kind (a throttled read and a missing parameter look alike, and the run
 * treats them differently), has no BatchGetSecretValue, and caches without serving a last good value
 * through a fault (reader.ts does that).
 *
 * A batch call the role may not make (a policy that grants only GetParameter / GetSecretValue, as a CDK
 * app of our first release did) falls back to one call per reference, and the store is read that way from
 * then on in this container.
 */
import { BatchGetSecretValueCommand, GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { AwsErrorKind, awsFailure } from '../../base/common/aws-errors.ts';

/** GetParameters takes at most 10 names. */
export const SSM_NAMES_PER_CALL = 10;
/** BatchGetSecretValue takes at most 20 ids in `SecretIdList`. */
export const SECRETS_PER_CALL = 20;

export type StoreKind = 'Secrets Manager secret' | 'SSM parameter';

/** One reference to read: its store and its id (a name or an ARN) as the target wrote it. */
export interface StoreRef {
  readonly kind: StoreKind;
  readonly id: string;
  readonly region: string;
}

/** What one reference's read gave: its text, no text, or the AWS error (a call's, or the batch's entry for it). */
export type StoreRead = { readonly value: string } | { readonly missing: 'no string value' | 'no value' } | { readonly error: unknown };

export interface StoreClients {
  secretsManager(region: string): SecretsManagerClient;
  ssm(region: string): SSMClient;
}

/** What the calls did, for the reads-per-run figure (test/bench/credential-reads.ts). */
export interface CallCount {
  calls: number;
  names: number;
}

interface Waiting {
  readonly ref: StoreRef;
  readonly settle: (read: StoreRead) => void;
}

export class BatchedReads {
  private queue: Waiting[] = [];
  private scheduled = false;
  /** Stores whose batch call was denied: read one by one from then on. */
  private readonly oneByOne = new Set<string>();
  readonly count: CallCount = { calls: 0, names: 0 };

  constructor(
    private readonly clients: StoreClients,
    /** Each call's own cut (ms): an AbortSignal per call. */
    private readonly timeoutMs: number,
  ) {}

  /** Reads one reference with whatever else is asked for in this turn. Never rejects: an error is a `StoreRead`. */
  read(ref: StoreRef): Promise<StoreRead> {
    return new Promise((settle) => {
      this.queue.push({ ref, settle });
      if (this.scheduled) return;
      this.scheduled = true;
      // After every resolve() of the run has asked: they all start in the same turn.
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const waiting = this.queue;
    this.queue = [];
    const byStore = new Map<string, Map<string, Waiting[]>>();
    for (const w of waiting) {
      const store = `${w.ref.kind}\0${w.ref.region}`;
      const ids = byStore.get(store) ?? new Map<string, Waiting[]>();
      ids.set(w.ref.id, [...(ids.get(w.ref.id) ?? []), w]);
      byStore.set(store, ids);
    }
    for (const [store, ids] of byStore) {
      const like = [...ids.values()][0]![0]!.ref;
      const size = like.kind === 'SSM parameter' ? SSM_NAMES_PER_CALL : SECRETS_PER_CALL;
      const all = [...ids.keys()];
      for (let i = 0; i < all.length; i += size) {
        const chunk = all.slice(i, i + size);
        void this.readChunk(store, like, chunk).then((reads) => {
          for (const id of chunk) for (const w of ids.get(id)!) w.settle(reads.get(id)!);
        });
      }
    }
  }

  /** Never rejects. */
  private async readChunk(store: string, like: StoreRef, ids: readonly string[]): Promise<Map<string, StoreRead>> {
    if (ids.length === 1 || this.oneByOne.has(store)) return this.oneEach(like, ids);
    const batch = await this.batch(like, ids);
    if ('error' in batch && awsFailure(batch.error).kind === AwsErrorKind.denied) {
      // The role may read each reference but not make the batch call: read them one by one from now on.
      this.oneByOne.add(store);
      return this.oneEach(like, ids);
    }
    if ('error' in batch) return new Map(ids.map((id) => [id, { error: batch.error }]));
    return batch.reads;
  }

  private async oneEach(like: StoreRef, ids: readonly string[]): Promise<Map<string, StoreRead>> {
    const reads = await Promise.all(ids.map((id) => this.one({ ...like, id })));
    return new Map(ids.map((id, i) => [id, reads[i]!]));
  }

  private async one(ref: StoreRef): Promise<StoreRead> {
    this.count.calls++;
    this.count.names++;
    const abortSignal = AbortSignal.timeout(this.timeoutMs);
    try {
      if (ref.kind === 'Secrets Manager secret') {
        const out = await this.clients.secretsManager(ref.region).send(new GetSecretValueCommand({ SecretId: ref.id }), { abortSignal });
        return out.SecretString === undefined ? { missing: 'no string value' } : { value: out.SecretString };
      }
      const out = await this.clients.ssm(ref.region).send(new GetParameterCommand({ Name: ref.id, WithDecryption: true }), { abortSignal });
      return out.Parameter?.Value === undefined ? { missing: 'no value' } : { value: out.Parameter.Value };
    } catch (error) {
      return { error };
    }
  }

  private async batch(like: StoreRef, ids: readonly string[]): Promise<{ reads: Map<string, StoreRead> } | { error: unknown }> {
    this.count.calls++;
    this.count.names += ids.length;
    const abortSignal = AbortSignal.timeout(this.timeoutMs);
    try {
      if (like.kind === 'Secrets Manager secret') {
        const out = await this.clients
          .secretsManager(like.region)
          .send(new BatchGetSecretValueCommand({ SecretIdList: [...ids] }), { abortSignal });
        const reads = new Map<string, StoreRead>();
        for (const id of ids) {
          const hit = out.SecretValues?.find((v) => v.ARN === id || v.Name === id);
          const miss = out.Errors?.find((e) => e.SecretId === id);
          reads.set(
            id,
            hit
              ? hit.SecretString === undefined
                ? { missing: 'no string value' }
                : { value: hit.SecretString }
              : { error: entryError(miss?.ErrorCode ?? 'ResourceNotFoundException', miss?.Message ?? 'not in the batch answer') },
          );
        }
        return { reads };
      }
      const out = await this.clients
        .ssm(like.region)
        .send(new GetParametersCommand({ Names: [...ids], WithDecryption: true }), { abortSignal });
      const reads = new Map<string, StoreRead>();
      for (const id of ids) {
        const hit = out.Parameters?.find((p) => p.ARN === id || p.Name === id);
        reads.set(
          id,
          hit
            ? hit.Value === undefined
              ? { missing: 'no value' }
              : { value: hit.Value }
            : { error: entryError('ParameterNotFound', `GetParameters listed ${JSON.stringify(id)} among its InvalidParameters`) },
        );
      }
      return { reads };
    } catch (error) {
      return { error };
    }
  }
}

/**
 * A batch answer's entry for one reference, shaped as the SDK shapes a service error (its code as the
 * name, a server fault marked as such), so the AWS error boundary reads it like any other.
 */
function entryError(code: string, message: string): Error {
  const e = new Error(message);
  e.name = code;
  if (/InternalService|ServiceUnavailable/.test(code)) Object.assign(e, { $fault: 'server' });
  return e;
}
