/**
 * The `auth` probe: a Bearer token for the target, from the process's cache or from discovery and
 * one token request, inside the run's budget and with its own duration. It ends in a token or in a
 * ProbeResult that says which side refused — never a throw.
 */
import { CanaryErrorCode, isCanaryError } from '../common/errors.ts';
import type { Target } from '../config/target.ts';
import { FailureClass, Outcome, type ProbeResult } from '../common/verdict.ts';
import { Wire, type FetchLike } from '../net/wire.ts';
import { discover } from './discovery.ts';
import { inWords } from './expiry.ts';
import type { AuthHop } from './hops.ts';
import { guardedFetch, pinnedFetch, type GuardOptions } from '../net/ssrf-guard.ts';
import { redactionValues } from '../config/oauth-secrets.ts';
import type { OAuthSecrets } from '../config/oauth-secrets.ts';
import { requestToken } from './token.ts';
import { cacheKey, processTokenCache, type TokenCache } from './tokens.ts';

export interface AuthorizeDeps {
  readonly fetch?: FetchLike | undefined;
  /** Monotonic ms, for the probe's duration. */
  readonly now: () => number;
  /** Wall-clock ms, for token expiry. @default - Date.now */
  readonly wallNow?: (() => number) | undefined;
  readonly budget: AbortSignal;
  readonly secrets?: OAuthSecrets | undefined;
  /** @default - the process's cache */
  readonly cache?: TokenCache | undefined;
  /** For tests of the guard: resolves host names. @default - DNS */
  readonly lookup?: GuardOptions['lookup'];
}

export type Authorized =
  | { readonly ok: true; readonly probe: ProbeResult; readonly token: string; readonly key: string }
  | { readonly ok: false; readonly probe: ProbeResult; readonly outcome: Outcome };

/**
 * `onSecret` hears every value to redact (the client secret and key before any request, the
 * assertion before it is sent, the token as soon as it arrives).
 */
export async function authorize(target: Target, deps: AuthorizeDeps, onSecret: (value: string) => void): Promise<Authorized> {
  const oauth = target.auth!.oauth;
  const secrets = deps.secrets ?? {};
  for (const s of redactionValues(secrets)) onSecret(s);
  // client_secret_basic sends the secret as `Basic base64(id:secret)`: a token endpoint that echoes the
  // header must not print it either (both the form-encoded and the plain encoding of the pair).
  if (secrets.clientSecret) {
    const pairs = [
      `${encodeURIComponent(oauth.clientId)}:${encodeURIComponent(secrets.clientSecret)}`,
      `${oauth.clientId}:${secrets.clientSecret}`,
    ];
    for (const pair of pairs) onSecret(Buffer.from(pair).toString('base64'));
  }
  const cache = deps.cache ?? processTokenCache;
  const wallNow = deps.wallNow ?? Date.now;
  const started = deps.now();
  const probe = (ok: boolean, detail: string, failure: FailureClass | null): ProbeResult => ({
    name: 'auth',
    ok,
    durationMs: deps.now() - started,
    detail,
    failure,
  });
  const key = cacheKey({
    authority: oauth.issuer ?? oauth.tokenUrl ?? target.url,
    clientId: oauth.clientId,
    resource: oauth.resource ?? target.url,
    scopes: oauth.scopes ?? [],
    credential: secrets.clientSecret ?? secrets.privateKey ?? '',
  });
  const guard: GuardOptions = {
    allowPrivateNetwork: oauth.allowPrivateNetwork,
    loopbackAllowed: isLoopback(new URL(target.url).hostname),
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  };
  // Connections of the token step resolve through the guard again (DNS rebinding); an injected fetch (tests) is used as given.
  const pinned = deps.fetch ? null : await pinnedFetch(guard);
  const wire = new Wire({ timeoutMs: target.timeoutMs, budget: deps.budget, fetch: deps.fetch ?? pinned!.fetch });
  try {
    const { token, cached } = await cache.get(key, async () => {
      const hops: AuthHop[] = [];
      const fetchFn = recorded(guardedFetch(wire.fetch, guard), hops, wire);
      const server = await discover(target.url, oauth, target.headers, fetchFn, hops);
      return requestToken({ oauth, secrets, server, fetch: fetchFn, hops, onSecret, now: wallNow });
    });
    onSecret(token.accessToken);
    const how = cached ? 'cached' : 'new';
    return {
      ok: true,
      key,
      token: token.accessToken,
      probe: probe(true, `token from ${token.issuer} (${how}, expires ${inWords(token.expiresAt - wallNow())})`, null),
    };
  } catch (e) {
    if (deps.budget.aborted)
      return {
        ok: false,
        outcome: Outcome.failed,
        probe: probe(false, "auth: the run's budget ran out before a token was obtained", FailureClass.timeout),
      };
    if (isCanaryError(e, CanaryErrorCode.auth) && e.data.side === 'config')
      return { ok: false, outcome: Outcome.inconclusive, probe: probe(false, `auth: ${e.message}`, null) };
    const detail = isCanaryError(e, CanaryErrorCode.auth) ? e.message : `token step failed: ${e instanceof Error ? e.name : 'error'}`;
    return { ok: false, outcome: Outcome.failed, probe: probe(false, `auth: ${detail}`, FailureClass.auth) };
  } finally {
    await wire.close();
    await pinned?.close();
  }
}

/** Records where each request went and what came back (the Wire's record has no URL). */
function recorded(f: FetchLike, hops: AuthHop[], wire: Wire): FetchLike {
  return async (url, init) => {
    const u = new URL(String(url));
    const hop: AuthHop = { url: `${u.origin}${u.pathname}`, status: null, error: null };
    hops.push(hop);
    try {
      const res = await f(url, init);
      hop.status = res.status;
      return res;
    } catch (e) {
      const x = wire.exchanges.at(-1)?.error;
      hop.error = isCanaryError(e, CanaryErrorCode.guardRefused) ? `refused (${e.data.reason})` : x ? wireWords(x.kind, x.code) : 'failed';
      throw e;
    }
  };
}

function wireWords(kind: string, code: string): string {
  if (kind === 'timeout') return 'no answer within the request timeout';
  if (kind === 'budget') return "the run's budget ran out";
  if (kind === 'tls') return `TLS handshake failed (${code})`;
  if (kind === 'too_large') return `answer too large (${code})`;
  return `cannot connect (${code})`;
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\./.test(h) || h === '::1';
}
