/**
 * The fetch the login and the refresher use outside a run: every URL through the SSRF guard (with
 * DNS pinned at connect time), each request under a timeout, answers capped, through the probe's Wire.
 */
import { guardedFetch, pinnedFetch, type GuardOptions } from '../net/ssrf-guard.ts';
import { Wire, type FetchLike } from '../net/wire.ts';

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
}

export async function withOAuthFetch<T>(o: OAuthFetchOptions, use: (fetch: FetchLike) => Promise<T>): Promise<T> {
  const guard: GuardOptions = {
    allowPrivateNetwork: o.allowPrivateNetwork,
    loopbackAllowed: isLoopback(new URL(o.serverUrl).hostname),
    ...(o.lookup ? { lookup: o.lookup } : {}),
  };
  const pinned = o.fetch ? null : await pinnedFetch(guard);
  const wire = new Wire({ timeoutMs: o.timeoutMs, budget: o.signal ?? new AbortController().signal, fetch: o.fetch ?? pinned!.fetch });
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
