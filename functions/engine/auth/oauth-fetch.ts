/**
 * The fetch the login and the refresher use outside a run: every URL through the SSRF guard (with
 * DNS pinned at connect time), each request under a timeout, answers capped, through the probe's Wire;
 * through the target's proxy and trusting its private CAs when a reach is given (a person behind an
 * egress proxy signs in through it, as the run's token step goes).
 */
import { oauthAnswerSecrets } from '../../base/common/redact.ts';
import { guardedFetch, pinnedFetch, type GuardOptions } from '../../base/net/ssrf-guard.ts';
import { proxyUrlOf } from '../../base/net/reach.ts';
import type { Reach } from '../../base/common/run-context.ts';
import { Wire, type FetchLike } from '../../base/net/wire.ts';

export interface OAuthFetchOptions {
  readonly allowPrivateNetwork: boolean;
  /** The MCP server is on loopback: loopback (and plain http) is allowed for its authorization server too. */
  readonly serverUrl: string;
  readonly timeoutMs: number;
  /** Ends every request still open. @default - never */
  readonly signal?: AbortSignal;
  /** Tests: an injected fetch used as given (still guarded). */
  readonly fetch?: FetchLike;
  readonly lookup?: GuardOptions['lookup'];
  /** The target's proxy and private CAs (its client certificate is the endpoint's, never sent here). @default - direct, public roots */
  readonly reach?: Reach | undefined;
}

/** The guard's rules for one MCP server's OAuth URLs: the same for what is fetched and what a person is sent to open. */
export function oauthGuard(o: Pick<OAuthFetchOptions, 'allowPrivateNetwork' | 'serverUrl' | 'lookup' | 'reach'>): GuardOptions {
  return {
    allowPrivateNetwork: o.allowPrivateNetwork,
    loopbackAllowed: isLoopback(new URL(o.serverUrl).hostname),
    viaProxy: proxyUrlOf(o.reach?.proxy) !== null,
    ...(o.lookup ? { lookup: o.lookup } : {}),
  };
}

export async function withOAuthFetch<T>(o: OAuthFetchOptions, use: (fetch: FetchLike) => Promise<T>): Promise<T> {
  const guard = oauthGuard(o);
  const pinned = o.fetch ? null : await pinnedFetch(guard, o.reach);
  const wire = new Wire({
    timeoutMs: o.timeoutMs,
    budget: o.signal ?? new AbortController().signal,
    fetch: o.fetch ?? pinned!.fetch,
    reach: pinned?.reach,
  });
  try {
    return await use(guardedFetch(wire.fetch, guard));
  } finally {
    await wire.close();
    await pinned?.close();
  }
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\./.test(h) || h === '::1';
}

/**
 * Tells `onSecret` every credential in each JSON answer (tokens, a registered client's secret) as it
 * arrives, before the SDK parses it: its schemas strip what they do not know (`id_token` is kept,
 * `registration_access_token` is not), and a secret it drops must still never reach a log.
 */
export function learningFetch(f: FetchLike, onSecret: (value: string) => void): FetchLike {
  return async (url, init) => {
    const res = await f(url, init);
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      const body: unknown = await res
        .clone()
        .json()
        .catch(() => null);
      for (const s of oauthAnswerSecrets(body)) onSecret(s);
    }
    return res;
  };
}
