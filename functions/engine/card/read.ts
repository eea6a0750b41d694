/**
 * One fetch of a target's Server Card: GET at the origin's well-known location, `If-None-Match` with
 * the ETag remembered, no credentials (a card is public), through the SSRF guard (https, or plain http
 * to a loopback target; public addresses unless the target allows private ones; never a cloud metadata
 * address), redirects never followed, within a timeout and the run's budget, at most 64 KiB read.
 * Never throws: every way it can go is a `CardRead`.
 */
import type { FetchLike } from '../../base/net/wire.ts';
import { guardedFetch, type GuardOptions } from '../../base/net/ssrf-guard.ts';

/** The most of a card's body read. */
export const MAX_CARD_BYTES = 64 * 1024;

export type CardRead =
  | { readonly kind: 'absent'; readonly status: number }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'card'; readonly json: unknown; readonly etag: string | null }
  /**
   * `served`: JSON came at the location (a card is advertised there), but not a readable one. Any other
   * type is not counted as served: many origins answer every path with their web app's page.
   */
  | { readonly kind: 'failed'; readonly why: string; readonly served: boolean };

export interface CardFetch {
  readonly fetch: FetchLike;
  readonly guard: GuardOptions;
  readonly timeoutMs: number;
  readonly budget: AbortSignal;
}

export async function fetchCard(url: string, etag: string | null, o: CardFetch): Promise<CardRead> {
  const signal = AbortSignal.any([AbortSignal.timeout(o.timeoutMs), o.budget]);
  let res: Response;
  try {
    res = await guardedFetch(o.fetch, o.guard)(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...(etag ? { 'if-none-match': etag } : {}) },
      signal,
    });
  } catch (e) {
    return { kind: 'failed', why: failureWords(e, signal), served: false };
  }
  try {
    if (res.status === 304)
      return etag ? { kind: 'unchanged' } : { kind: 'failed', why: 'HTTP 304 to a request without If-None-Match', served: false };
    if (res.status === 404 || res.status === 410) return { kind: 'absent', status: res.status };
    if (res.status >= 300 && res.status < 400) {
      const to = res.headers.get('location');
      return {
        kind: 'failed',
        why: `HTTP ${res.status}${to ? ` to ${to.slice(0, 200)}` : ''} (redirects are not followed)`,
        served: false,
      };
    }
    if (res.status !== 200) return { kind: 'failed', why: `HTTP ${res.status}`, served: false };
    const type = res.headers.get('content-type') ?? '';
    if (!/\bjson\b/i.test(type))
      return { kind: 'failed', why: `served as ${type.slice(0, 60) || 'no content type'}, not application/json`, served: false };
    const text = await capped(res, signal);
    if (text === null) return { kind: 'failed', why: `larger than ${MAX_CARD_BYTES / 1024} KiB`, served: true };
    try {
      return { kind: 'card', json: JSON.parse(text), etag: res.headers.get('etag') };
    } catch {
      return { kind: 'failed', why: 'not valid JSON', served: true };
    }
  } catch (e) {
    return { kind: 'failed', why: failureWords(e, signal), served: false };
  } finally {
    if (res.body && !res.body.locked) await res.body.cancel().catch(() => {});
  }
}

/** The body as text, or null past the cap. */
async function capped(res: Response, signal: AbortSignal): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_CARD_BYTES) return null;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failureWords(e: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer within the timeout';
  const err = e as { name?: string; message?: string; cause?: { code?: string } };
  if (err.name === 'GuardRefusal') return err.message ?? 'refused by the SSRF guard';
  return `cannot connect (${err.cause?.code ?? err.message ?? 'fetch failed'})`;
}
