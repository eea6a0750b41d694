/**
 * Header values read at run time from Secrets Manager or SSM Parameter Store, by the reference the
 * target's `headerSecrets` gives. Values stay in memory only: they are never logged, never put in an
 * error message, and are cached per warm container for a short TTL so a rotated secret is picked up
 * within minutes without a read per run.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { redactionValues, resolveOAuthSecrets, type OAuthSecrets } from '../../base/config/load/oauth-secrets.ts';
import { SECRET_READ_TIMEOUT_MS } from '../../base/config/schema/budget.ts';
import type { HeaderSecretRef, Target } from '../../base/config/schema/target.ts';
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import { AwsErrorKind, awsFailure, awsWords } from '../../base/common/aws-errors.ts';
import type { Reach } from '../../base/common/run-context.ts';
import type { ProxyRuntime } from '../../base/config/schema/proxy.ts';
import { readReach, type ReachRead } from './reach.ts';
import type { TlsSetting } from '../../base/config/schema/tls.ts';
import { accessSecretName } from '../../base/config/schema/oauth-delegated.ts';
import type { DelegatedAccess } from '../../base/config/load/oauth-secrets.ts';
import { readAccess } from './grant-store.ts';

/**
 * A published access token is reused this long: the refresher renews it at half its lifetime, so a copy
 * this old still has most of its life, and a refused or renewed grant reaches every run within a minute.
 */
export const ACCESS_TTL_MS = 60_000;

/** How long a read value is reused by the same warm container. */
export const SECRET_TTL_MS = 5 * 60_000;

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
  readonly secretValues: readonly string[];
  /** The target's OAuth client secret / private key (`auth.oauth`), read the same way. */
  readonly oauth?: OAuthSecrets;
  /** The target's client certificate, private CAs and proxy, read and checked (secrets/reach.ts). */
  readonly reach?: Reach | undefined;
}

interface Source {
  readonly kind: 'Secrets Manager secret' | 'SSM parameter';
  readonly id: string;
  readonly region: string;
  readonly permission: string;
}

export class SecretReader {
  private readonly cache = new Map<string, { readonly value: Promise<string>; readonly expiresAt: number }>();
  private readonly access = new Map<string, { readonly value: Promise<DelegatedAccess>; readonly expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly readTimeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly clients: SecretClients,
    private readonly opts: SecretReaderOptions,
  ) {
    this.ttlMs = opts.ttlMs ?? SECRET_TTL_MS;
    this.readTimeoutMs = opts.readTimeoutMs ?? SECRET_READ_TIMEOUT_MS;
    this.now = opts.now ?? Date.now;
  }

  /**
   * The target's headers with every `headerSecrets` value filled in (a secret header wins over a
   * static one of the same name). Throws `CanaryError` code `SECRET` naming the header and the fix.
   */
  async resolve(target: Target): Promise<ResolvedHeaders> {
    const headers: Record<string, string> = { ...target.headers };
    const secretValues: string[] = [];
    // OAuth secret references go through the same cache, timeout and error words, read beside the headers.
    const [, oauth, reach] = await Promise.all([
      Promise.all(
        Object.entries(target.headerSecrets).map(async ([header, ref]) => {
          const value = await this.value(`headerSecrets.${header}`, ref);
          secretValues.push(value);
          headers[header] = (ref.prefix ?? '') + value;
        }),
      ),
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
    return { headers, secretValues, oauth: withDelegated, ...(reach.reach ? { reach: reach.reach } : {}) };
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
    const raw = await this.cached(source, () => this.read(header, source));
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
      permission: 'ssm:GetParameter (and kms:Decrypt for a SecureString)',
    };
  }

  /** One read per reference per TTL; concurrent targets sharing a secret share the read. A failed read is not kept. */
  private cached(source: Source, read: () => Promise<string>): Promise<string> {
    const key = `${source.kind}\0${source.region}\0${source.id}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    const value = read();
    this.cache.set(key, { value, expiresAt: this.now() + this.ttlMs });
    value.catch(() => {
      if (this.cache.get(key)?.value === value) this.cache.delete(key);
    });
    return value;
  }

  private async read(header: string, source: Source): Promise<string> {
    const abortSignal = AbortSignal.timeout(this.readTimeoutMs);
    try {
      if (source.kind === 'Secrets Manager secret') {
        const out = await this.clients
          .secretsManager(source.region)
          .send(new GetSecretValueCommand({ SecretId: source.id }), { abortSignal });
        if (out.SecretString === undefined)
          throw secretError(header, source, 'has no string value (binary secrets are not supported)', 'Store the credential as a string.');
        return out.SecretString;
      }
      const out = await this.clients
        .ssm(source.region)
        .send(new GetParameterCommand({ Name: source.id, WithDecryption: true }), { abortSignal });
      if (out.Parameter?.Value === undefined) throw secretError(header, source, 'has no value', 'Put the credential in it.');
      return out.Parameter.Value;
    } catch (e) {
      if (e instanceof CanaryError) throw e;
      throw readError(header, source, e, abortSignal.aborted ? this.readTimeoutMs : null, FIX_WORDS[this.opts.reader ?? 'function']);
    }
  }
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

function readError(header: string, source: Source, e: unknown, timedOutMs: number | null, words: (typeof FIX_WORDS)[Reader]): CanaryError {
  if (timedOutMs !== null)
    return secretError(header, source, `did not answer within ${timedOutMs} ms`, `Check ${words.network(source.region)}.`, e);
  // By the AWS error boundary's kind (the SDK's error code: ResourceNotFoundException, ParameterNotFound, AccessDeniedException…), never its message.
  const failure = awsFailure(e);
  const fix =
    failure.kind === AwsErrorKind.notFound
      ? `Create it in ${source.region}, or reference it by ARN.`
      : failure.kind === AwsErrorKind.denied
        ? `Grant ${words.grantee} ${source.permission} on it.`
        : `Check the reference and ${words.check}.`;
  return secretError(header, source, `cannot be read (${awsWords(failure)})`, fix, e);
}

/** The message names the header and the reference, never the value. */
function secretError(header: string, source: Source, what: string, fix: string, cause?: unknown): CanaryError {
  return new CanaryError(
    CanaryErrorCode.secret,
    `${header}: ${source.kind} ${JSON.stringify(source.id)} in ${source.region} ${what}. ${fix}`,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

/** `arn:aws:secretsmanager:eu-west-1:123456789012:secret:name` → `eu-west-1`. */
function arnRegion(id: string): string | undefined {
  if (!id.startsWith('arn:')) return undefined;
  return id.split(':')[3] || undefined;
}
