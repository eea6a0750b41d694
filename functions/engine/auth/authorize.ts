/**
 * The token step (the `auth` probe): a Bearer token for the target, from the process's cache or from
 * discovery and one token request, inside the run's budget. It ends in a token or in a fault that says
 * which side refused — never a throw.
 */
import { CanaryErrorCode, isCanaryError } from '../../base/common/errors.ts';
import type { Target } from '../../base/config/schema/target.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faulted, passed, type Fault, type StepResult } from '../../base/common/step.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import type { OAuthSettings } from '../../base/config/schema/oauth.ts';
import { Wire, type FetchLike } from '../../base/net/wire.ts';
import { discover } from './discovery.ts';
import { inWords } from './expiry.ts';
import type { AuthHop } from './hops.ts';
import { guardedFetch, pinnedFetch, type GuardOptions } from '../../base/net/ssrf-guard.ts';
import { proxyUrlOf } from '../../base/net/reach.ts';
import { redactionValues } from '../../base/config/load/oauth-secrets.ts';
import type { OAuthSecrets } from '../../base/config/load/oauth-secrets.ts';
import { requestToken } from './token.ts';
import { cacheKey, processTokenCache, type TokenCache } from './tokens.ts';

/** What the token step takes beside the run context; all optional. */
export interface AuthorizeDeps {
  readonly secrets?: OAuthSecrets | undefined;
  /** @default - the process's cache */
  readonly cache?: TokenCache | undefined;
  /** For tests of the guard: resolves host names. @default - DNS */
  readonly lookup?: GuardOptions['lookup'];
}

/** The token the step obtained, and its cache key (to drop it if the MCP server refuses it). */
export interface Bearer {
  readonly token: string;
  readonly key: string;
}

/**
 * `onSecret` hears every value to redact (the client secret and key before any request, the
 * assertion before it is sent, the token as soon as it arrives). The step's fault is `auth` on the
 * endpoint's side, `timeout` when the budget ran out, and no failure class (inconclusive) when the
 * canary's own key or secret is the problem.
 */
export async function authorize(
  target: Target,
  ctx: RunContext,
  deps: AuthorizeDeps,
  onSecret: (value: string) => void,
): Promise<StepResult<Bearer>> {
  const oauth = target.auth!.oauth!;
  const secrets = deps.secrets ?? {};
  tellSecrets(oauth, secrets, onSecret);
  const cache = deps.cache ?? processTokenCache;
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
    viaProxy: proxyUrlOf(ctx.reach?.proxy) !== null,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  };
  // Connections of the token step resolve through the guard again (DNS rebinding); an injected fetch (tests)
  // is used as given. The token requests carry no trace context: the authorization server is not the endpoint.
  const pinned = ctx.fetch ? null : await pinnedFetch(guard, ctx.reach);
  const wire = new Wire({ timeoutMs: target.timeoutMs, budget: ctx.signal, fetch: ctx.fetch ?? pinned!.fetch, reach: pinned?.reach });
  try {
    const { token, cached } = await cache.get(key, async () => {
      const hops: AuthHop[] = [];
      const fetchFn = recorded(guardedFetch(wire.fetch, guard), hops, wire);
      const server = await discover(target.url, oauth, target.headers, fetchFn, hops);
      return requestToken({ oauth, secrets, server, fetch: fetchFn, hops, onSecret, now: ctx.wallNow });
    });
    onSecret(token.accessToken);
    const expires = inWords(token.expiresAt - ctx.wallNow());
    return passed({ token: token.accessToken, key }, `token from ${token.issuer} (${cached ? 'cached' : 'new'}, expires ${expires})`);
  } catch (e) {
    return faulted(tokenFault(e, ctx.signal.aborted));
  } finally {
    await wire.close();
    await pinned?.close();
  }
}

/**
 * client_secret_basic sends the secret as `Basic base64(id:secret)`: a token endpoint that echoes the
 * header must not print it either (both the form-encoded and the plain encoding of the pair).
 */
function tellSecrets(oauth: OAuthSettings, secrets: OAuthSecrets, onSecret: (value: string) => void): void {
  for (const s of redactionValues(secrets)) onSecret(s);
  if (!secrets.clientSecret) return;
  const pairs = [
    `${encodeURIComponent(oauth.clientId)}:${encodeURIComponent(secrets.clientSecret)}`,
    `${oauth.clientId}:${secrets.clientSecret}`,
  ];
  for (const pair of pairs) onSecret(Buffer.from(pair).toString('base64'));
}

/** Why the step ended without a token, by the error's code: the budget, the canary's own config, or the endpoint's side. */
function tokenFault(e: unknown, budgetSpent: boolean): Fault {
  if (budgetSpent)
    return { failure: FailureClass.timeout, retryable: false, detail: "auth: the run's budget ran out before a token was obtained" };
  if (isCanaryError(e, CanaryErrorCode.auth) && e.data.side === 'config')
    return { failure: null, retryable: false, detail: `auth: ${e.message}` };
  const detail = isCanaryError(e, CanaryErrorCode.auth) ? e.message : `token step failed: ${e instanceof Error ? e.name : 'error'}`;
  return { failure: FailureClass.auth, retryable: false, detail: `auth: ${detail}` };
}

/** Records where each request went and what came back (the Wire's record has no URL). */
function recorded(f: FetchLike, hops: AuthHop[], wire: Wire): FetchLike {
  return async (url, init) => {
    const u = new URL(String(url));
    const hop: AuthHop = { url: shownUrl(u.href), status: null, error: null };
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
