/**
 * One POST of a finished payload to a collector (functions/io/telemetry's OTLP export): a pool of its own,
 * closed after, so a collector that hangs keeps no socket (and no warm Lambda) alive past the export's
 * timeout; and one hard timeout on the whole exchange, body included. Never throws: the answer or the
 * reason there was none, in words that carry no header or URL.
 *
 * Not the OTel exporter's own transport: it cannot sign a body with SigV4 (the signature covers the
 * payload's hash) and knows nothing of the invocation's time left.
 */
import type { FetchLike } from '../common/run-context.ts';
import { Connections } from './connections.ts';
import { errorCode, networkErrorKind } from './exchange.ts';

export type PostOutcome =
  | { readonly ok: boolean; readonly status: number; readonly retryAfter?: string }
  | { readonly ok: false; readonly error: 'timeout' | 'unreachable' | 'tls' | 'other'; readonly code: string };

export async function postBytes(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  timeoutMs: number,
  injected?: FetchLike,
): Promise<PostOutcome> {
  const pool = new Connections(timeoutMs, injected);
  const signal = AbortSignal.timeout(Math.max(1, timeoutMs));
  try {
    // Never followed: fetch would send the configured headers (an API key) on to wherever a 307/308 points,
    // another host included. A collector that redirects is an answer to fix in the config.
    const res = await pool.fetch()(url, { method: 'POST', headers, body: body as Uint8Array<ArrayBuffer>, signal, redirect: 'manual' });
    // Read (and drop) the answer within the same timeout: an OTLP answer is small, and the status is enough.
    await res.arrayBuffer();
    const retryAfter = res.headers.get('retry-after');
    return { ok: res.ok, status: res.status, ...(retryAfter ? { retryAfter } : {}) };
  } catch (e) {
    const kind = signal.aborted ? 'timeout' : networkErrorKind(e);
    return { ok: false, error: kind === 'timeout' || kind === 'unreachable' || kind === 'tls' ? kind : 'other', code: errorCode(e) };
  } finally {
    await pool.close();
  }
}
