/**
 * Header values read at run time from Secrets Manager or SSM Parameter Store, by the reference the
 * target's `headerSecrets` gives. Values stay in memory only: they are never logged, never put in an
 * error message, and are kept per warm container so that a run seldom waits for a read:
 *
 * - **Fresh** for SECRET_TTL_MS (5 minutes, minus up to a fifth of it at random so that the containers a
 *   deploy started together do not all read again in the same minute): used as is.
 * - **Stale but valid** up to SECRET_VALID_MS (1 hour) after it was read: used at once, and read again in
 *   the background (with the other reads of that turn, batched.ts); the run does not wait for it. A
 *   rotated value is used within five minutes and one run.
 * - **Through a read fault** (throttled, a 5xx, no answer in time, not reached), the last good value is
 *   served while it is valid, and the next try waits about a minute. A transient read fault is never a
 *   verdict: with no value at hand, the run cannot be judged (`SECRET` with `unavailable`), and the run
 *   skips the target and tells the canary owner (functions/base/common/own-faults.ts).
 * - A reference that is gone or may not be read (not found, denied) is forgotten at once: every later
 *   run says so (an inconclusive verdict naming the fix), until someone fixes it.
 *
 * Each failed read is counted (`drainFaults`) for the run's `credentials` own fault. Reads per target
 * and run, measured over Lambda's container churn: test/bench/credential-reads.ts.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { redactionValues, resolveOAuthSecrets, type OAuthSecrets } from '../../base/config/load/oauth-secrets.ts';
import { SECRET_READ_TIMEOUT_MS } from '../../base/config/schema/budget.ts';
import { urlWithQuery, type HeaderSecretRef, type Target } from '../../base/config/schema/target.ts';
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import { AwsErrorKind, awsFailure, awsWords, isTransient, type AwsFailure } from '../../base/common/aws-errors.ts';
import type { Reach } from '../../base/common/run-context.ts';
import type { ProxyRuntime } from '../../base/config/schema/proxy.ts';
import { readReach, type ReachRead } from './reach.ts';
import type { TlsSetting } from '../../base/config/schema/tls.ts';
import { accessSecretName } from '../../base/config/schema/oauth-delegated.ts';
import type { DelegatedAccess } from '../../base/config/load/oauth-secrets.ts';
import { readAccess } from './grant-store.ts';
import { BatchedReads, type CallCount, type StoreRead, type StoreRef } from './batched.ts';

/**
 * A published access token is reused this long: the refresher renews it at half its lifetime, so a copy
 * this old still has most of its life, and a refused or renewed grant reaches every run within a minute.
 */
export const ACCESS_TTL_MS = 60_000;

/** How long a read value is used without reading it again (less up to SECRET_FRESH_JITTER of it). */
export const SECRET_TTL_MS = 5 * 60_000;
/** The part of the TTL taken off at random, per read: containers started together spread their next reads. */
export const SECRET_FRESH_JITTER = 0.2;
/** How long after its read a value is still served while reading it again fails (and used while it is read again). */
export const SECRET_VALID_MS = 60 * 60_000;
/** After a failed read again, the value is used this long (half to all of it, at random) before the next try. */
export const SECRET_RETRY_AFTER_MS = 60_000;

/** SDK clients by region: a reference by ARN is read in the ARN's region, a plain name in the probe region. */
export interface SecretClients {
  secretsManager(region: string): SecretsManagerClient;
  ssm(region: string): SSMClient;
}

export interface SecretReaderOptions {
  /** Where plain names (not ARNs) are looked up: the probe region. */
  readonly defaultRegion: string;
  /** @default - SECRET_TTL_MS (5 minutes) */
  readonly ttlMs?: number;
  /** @default - SECRET_VALID_MS (1 hour) */
  readonly validMs?: number;
  /** 0 ≤ x < 1, for the jitter. @default - Math.random */
  readonly random?: () => number;
  /** @default - SECRET_READ_TIMEOUT_MS (5 s) */
  readonly readTimeoutMs?: number;
  /** Wall clock in ms, for the TTL. @default - Date.now */
  readonly now?: () => number;
  /** Who reads, for the fix an error names: the deployed function, or the CLI's caller. @default 'function' */
  readonly reader?: Reader;
  /** The fleet's proxy (the run function), or the environment's (the CLI): its credentials are read here. @default - none */
  readonly proxy?: ProxyRuntime | { readonly fromEnv: true } | undefined;
  /** `file:` references of `tls` may be read: the CLI's. @default - reader is 'caller' */
  readonly files?: boolean;
}

type Reader = 'function' | 'caller';
const FIX_WORDS: Readonly<Record<Reader, { grantee: string; network: (region: string) => string; check: string }>> = {
  function: {
    grantee: 'the function',
    network: (region) => `the function's network path to ${region} (VPC endpoint or NAT)`,
    check: "the function's permissions",
  },
  caller: { grantee: 'your AWS identity', network: (region) => `your network path to ${region}`, check: "your AWS identity's permissions" },
};

/** The target's secret header values, kept apart so the caller can build a Redactor from them. */
export interface ResolvedHeaders {
  readonly headers: Record<string, string>;
  /** The URL the run sends to: `url` with its `querySecrets` values added (target.ts `urlWithQuery`). */
  readonly url: string;
  readonly secretValues: readonly string[];
  /** The target's OAuth client secret / private key (`auth.oauth`), read the same way. */
  readonly oauth?: OAuthSecrets;
  /** The target's client certificate, private CAs and proxy, read and checked (secrets/reach.ts). */
  readonly reach?: Reach | undefined;
}

interface Source extends StoreRef {
  readonly permission: string;
}

/** A value read, and until when it is used as is and served at all. */
interface Kept {
  readonly value: string;
  readonly freshUntil: number;
  readonly validUntil: number;
  /** A read again in flight: at most one per reference. */
  refreshing?: Promise<void>;
}

export class SecretReader {
  private readonly kept = new Map<string, Kept>();
  /** Reads nobody has a value for yet, shared by every target that asks meanwhile. */
  private readonly waiting = new Map<string, Promise<string>>();
  private readonly access = new Map<string, { readonly value: Promise<DelegatedAccess>; readonly expiresAt: number }>();
  private readonly store: BatchedReads;
  private readonly ttlMs: number;
  private readonly validMs: number;
  private readonly readTimeoutMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private faults = 0;

  constructor(
    private readonly clients: SecretClients,
    private readonly opts: SecretReaderOptions,
  ) {
    this.ttlMs = opts.ttlMs ?? SECRET_TTL_MS;
    this.validMs = Math.max(opts.validMs ?? SECRET_VALID_MS, this.ttlMs);
    this.readTimeoutMs = opts.readTimeoutMs ?? SECRET_READ_TIMEOUT_MS;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.store = new BatchedReads(clients, this.readTimeoutMs);
  }

  /** The reads that failed since the last call (served from a last good value or not): the run's `credentials` own fault. */
  drainFaults(): number {
    const n = this.faults;
    this.faults = 0;
    return n;
  }

  /** Store calls and references read so far by this reader (the bench's reads-per-run figure). */
  get calls(): Readonly<CallCount> {
    return this.store.count;
  }

  /**
   * The target's headers with every `headerSecrets` value filled in (a secret header wins over a
   * static one of the same name). Throws `CanaryError` code `SECRET` naming the header and the fix.
   */
  async resolve(target: Target): Promise<ResolvedHeaders> {
    const headers: Record<string, string> = { ...target.headers };
    const query: Record<string, string> = {};
    const secretValues: string[] = [];
    // OAuth secret references go through the same cache, timeout and error words, read beside the headers.
    const [, , oauth, reach] = await Promise.all([
      Promise.all(
        Object.entries(target.headerSecrets).map(async ([header, ref]) => {
          const value = await this.value(`headerSecrets.${header}`, ref);
          secretValues.push(value);
          headers[header] = (ref.prefix ?? '') + value;
        }),
      ),
      // Kept in the config's order whatever order the reads finish in: the URL is the same on every run.
      Promise.all(
        Object.entries(target.querySecrets ?? {}).map(async ([key, ref]) => {
          const value = await this.value(`querySecrets.${key}`, ref);
          secretValues.push(value);
          return [key, (ref.prefix ?? '') + value] as const;
        }),
      ).then((pairs) => Object.assign(query, Object.fromEntries(pairs))),
      resolveOAuthSecrets(target.auth?.oauth, (field, ref) =>
        this.value(
          field,
          'secretsManager' in ref ? { secretsManager: ref.secretsManager, jsonKey: ref.jsonKey } : { ssmParameter: ref.ssmParameter },
        ),
      ),
      readReach(target.tls, this.opts.proxy, (field, ref) => this.value(field, ref), {
        files: this.opts.files ?? this.opts.reader === 'caller',
        now: this.now(),
      }),
    ]);
    const code = target.auth?.authorizationCode;
    const delegated = code && 'secretsManager' in code.store ? await this.delegated(code.store.secretsManager) : undefined;
    const withDelegated = delegated ? { ...oauth, delegated } : oauth;
    secretValues.push(...redactionValues(withDelegated), ...reach.secretValues);
    const url = urlWithQuery(target.url, query);
    return { headers, url, secretValues, oauth: withDelegated, ...(reach.reach ? { reach: reach.reach } : {}) };
  }

  /**
   * The access token the refresher published for a delegated grant, in this region. Never throws: no
   * token is the canary's own credential problem (an inconclusive run naming it), not a failed read.
   */
  private delegated(grantSecret: string): Promise<DelegatedAccess> {
    const region = this.opts.defaultRegion;
    const key = `${region}\0${grantSecret}`;
    const hit = this.access.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    const where = `Secrets Manager secret ${JSON.stringify(accessSecretName(grantSecret))} in ${region}`;
    const value = readAccess(this.clients.secretsManager(region), grantSecret).then(
      (a): DelegatedAccess => (a ? { access: a } : { missing: `nothing is published in ${where}: deploy the refresher, or log in again` }),
      (e: Error): DelegatedAccess => ({ missing: e.message }),
    );
    this.access.set(key, { value, expiresAt: this.now() + Math.min(ACCESS_TTL_MS, this.ttlMs) });
    return value;
  }

  /**
   * TLS material alone, read and checked as resolve() reads a target's, through no proxy: the refresher's
   * private CAs for the authorization server (it runs outside any VPC).
   */
  tlsReach(tls: TlsSetting): Promise<ReachRead> {
    return readReach(tls, undefined, (field, ref) => this.value(field, ref), {
      files: this.opts.files ?? this.opts.reader === 'caller',
      now: this.now(),
    });
  }

  private async value(header: string, ref: HeaderSecretRef): Promise<string> {
    const source = this.source(ref);
    const raw = await this.raw(header, source);
    const value = 'jsonKey' in ref && ref.jsonKey !== undefined ? jsonField(header, source, raw, ref.jsonKey) : raw;
    // Secrets stored from a file often end in a newline, which is not a valid header value.
    const trimmed = value.trim();
    if (!trimmed) throw secretError(header, source, 'is empty', 'Put the credential in it.');
    return trimmed;
  }

  private source(ref: HeaderSecretRef): Source {
    if ('secretsManager' in ref) {
      return {
        kind: 'Secrets Manager secret',
        id: ref.secretsManager,
        region: arnRegion(ref.secretsManager) ?? this.opts.defaultRegion,
        permission: 'secretsmanager:GetSecretValue (and kms:Decrypt on its key)',
      };
    }
    return {
      kind: 'SSM parameter',
      id: ref.ssmParameter,
      region: arnRegion(ref.ssmParameter) ?? this.opts.defaultRegion,
      permission: 'ssm:GetParameter and ssm:GetParameters (and kms:Decrypt for a SecureString)',
    };
  }

  /** The reference's text: kept, kept and read again behind the run, or read now (shared with every concurrent asker). */
  private raw(header: string, source: Source): Promise<string> {
    const key = `${source.kind}\0${source.region}\0${source.id}`;
    const now = this.now();
    const kept = this.kept.get(key);
    if (kept && kept.freshUntil > now) return Promise.resolve(kept.value);
    if (kept && kept.validUntil > now) {
      this.readAgain(key, source, kept);
      return Promise.resolve(kept.value);
    }
    const pending = this.waiting.get(key);
    if (pending) return pending;
    const read = this.store.read(source).then((r) => {
      if (this.waiting.get(key) === read) this.waiting.delete(key);
      if ('value' in r) return this.keep(key, r.value).value;
      this.kept.delete(key);
      throw this.failed(header, source, r);
    });
    this.waiting.set(key, read);
    return read;
  }

  /** Reads a kept value again behind the run; through a transient fault the old one stays, and is tried again in about a minute. */
  private readAgain(key: string, source: Source, kept: Kept): void {
    if (kept.refreshing) return;
    kept.refreshing = this.store.read(source).then((r) => {
      if ('value' in r) {
        this.keep(key, r.value);
        return;
      }
      const failure = 'error' in r ? awsFailure(r.error) : undefined;
      if (failure && countsAsFault(failure)) this.faults++;
      if (failure && unavailable(failure)) {
        const retryAt = this.now() + SECRET_RETRY_AFTER_MS * (0.5 + this.random() / 2);
        this.kept.set(key, { value: kept.value, freshUntil: Math.min(retryAt, kept.validUntil), validUntil: kept.validUntil });
        return;
      }
      // Gone, emptied or refused: forget it, so the next run says why.
      this.kept.delete(key);
    });
  }

  private keep(key: string, value: string): Kept {
    const now = this.now();
    const kept = { value, freshUntil: now + this.ttlMs * (1 - SECRET_FRESH_JITTER * this.random()), validUntil: now + this.validMs };
    this.kept.set(key, kept);
    return kept;
  }

  /** The error for a read that gave no text; a failed AWS call is counted as a fault of the canary's own. */
  private failed(header: string, source: Source, r: Exclude<StoreRead, { value: string }>): CanaryError {
    if ('missing' in r) {
      return r.missing === 'no string value'
        ? secretError(header, source, 'has no string value (binary secrets are not supported)', 'Store the credential as a string.')
        : secretError(header, source, 'has no value', 'Put the credential in it.');
    }
    const failure = awsFailure(r.error);
    if (countsAsFault(failure)) this.faults++;
    return readError(
      header,
      source,
      r.error,
      failure,
      failure.kind === AwsErrorKind.timeout ? this.readTimeoutMs : null,
      FIX_WORDS[this.opts.reader ?? 'function'],
    );
  }
}

/** A read the canary could not make, or may not: its own fault (not a reference that is simply wrong). */
function countsAsFault(f: AwsFailure): boolean {
  return f.kind !== AwsErrorKind.notFound && f.kind !== AwsErrorKind.client;
}

/** Nothing to judge with for now: the store may answer on a later try. Not a verdict (see the file's comment). */
function unavailable(f: AwsFailure): boolean {
  return isTransient(f) || f.kind === AwsErrorKind.credentials || f.kind === AwsErrorKind.unknown;
}

function jsonField(header: string, source: Source, raw: string, key: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Never quote the parse error: it can contain part of the secret.
    throw secretError(header, source, 'is not a JSON object', `Store it as JSON, or remove jsonKey "${key}".`);
  }
  const field =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>)[key] : undefined;
  if (typeof field === 'string') return field;
  if (typeof field === 'number') return String(field);
  throw secretError(header, source, `has no string key "${key}"`, 'Fix jsonKey or add the key to the secret.');
}

function readError(
  header: string,
  source: Source,
  e: unknown,
  failure: AwsFailure,
  timedOutMs: number | null,
  words: (typeof FIX_WORDS)[Reader],
): CanaryError {
  const data = { unavailable: unavailable(failure), aws: failure.kind };
  if (timedOutMs !== null)
    return secretError(header, source, `did not answer within ${timedOutMs} ms`, `Check ${words.network(source.region)}.`, e, data);
  // By the AWS error boundary's kind (the SDK's error code: ResourceNotFoundException, ParameterNotFound, AccessDeniedException…), never its message.
  const fix =
    failure.kind === AwsErrorKind.notFound
      ? `Create it in ${source.region}, or reference it by ARN.`
      : failure.kind === AwsErrorKind.denied
        ? `Grant ${words.grantee} ${source.permission} on it.`
        : failure.kind === AwsErrorKind.throttled
          ? `Too many reads for ${source.region}'s quota: see docs/deploy.md, "Credentials at scale".`
          : `Check the reference and ${words.check}.`;
  return secretError(header, source, `cannot be read (${awsWords(failure)})`, fix, e, data);
}

/** The message names the header and the reference, never the value. */
function secretError(
  header: string,
  source: Source,
  what: string,
  fix: string,
  cause?: unknown,
  data: { readonly unavailable: boolean; readonly aws?: AwsErrorKind } = { unavailable: false },
): CanaryError {
  return new CanaryError(
    CanaryErrorCode.secret,
    `${header}: ${source.kind} ${JSON.stringify(source.id)} in ${source.region} ${what}. ${fix}`,
    data,
    cause === undefined ? undefined : { cause },
  );
}

/** `arn:aws:secretsmanager:eu-west-1:123456789012:secret:name` → `eu-west-1`. */
function arnRegion(id: string): string | undefined {
  if (!id.startsWith('arn:')) return undefined;
  return id.split(':')[3] || undefined;
}
