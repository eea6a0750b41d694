/**
 * The few hand-made requests the posture checks send. Each is one the server answers without changing
 * anything: `server/discover` / `tools/list` on 2026-07-28 (stateless), `ping` on 2025-11-25. The SDK's
 * Client cannot send a request with a foreign Origin, a bogus protocol version or no credentials on
 * purpose, so these are plain fetches shaped like the SDK's own (headers and `_meta` envelope).
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { Revision } from '../../base/common/verdict.ts';
import { VERSION } from '../../base/common/version.ts';
import type { FetchLike } from '../../base/net/wire.ts';

/** A protocol version no server speaks (the spec's versions are dates from 2024 on). */
export const UNKNOWN_PROTOCOL_VERSION = '1999-01-01';
/** An origin no one owns (RFC 2606 `.invalid`): a browser page on it would be a DNS-rebinding attacker. */
export const FOREIGN_ORIGIN = 'https://dns-rebinding.mcp-canary.invalid';
/** The most of any answer body a check reads. */
export const MAX_POSTURE_BODY_BYTES = 64 * 1024;

export interface PostureRequestContext {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly revision: Revision;
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly budget: AbortSignal;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** The raw response (its body already read), for the SDK's WWW-Authenticate parser. */
  readonly response: Response;
}

let nextId = 1;

/** A JSON-RPC request as the SDK sends it on `revision`, with `version` in the header and `_meta`. */
export function rpc(revision: Revision, method: string, version: string = revision): { headers: Record<string, string>; body: string } {
  const id = `mcp-canary-posture-${nextId++}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (revision === Revision.legacy) {
    headers['mcp-protocol-version'] = version;
    return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method }) };
  }
  headers['mcp-protocol-version'] = version;
  headers['mcp-method'] = method;
  const _meta = {
    [PROTOCOL_VERSION_META_KEY]: version,
    [CLIENT_INFO_META_KEY]: { name: 'mcp-canary-posture', version: VERSION },
    [CLIENT_CAPABILITIES_META_KEY]: {},
  };
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta } }) };
}

/** The era's harmless request: discover on 2026-07-28, ping on 2025-11-25. */
export function harmless(revision: Revision): { headers: Record<string, string>; body: string } {
  return rpc(revision, revision === Revision.modern ? 'server/discover' : 'ping');
}

/** One request under the target's timeout and the run's budget; the body read up to the cap. */
export async function send(
  ctx: PostureRequestContext,
  init: { method: string; headers: Record<string, string>; body?: string },
  url = ctx.url,
): Promise<Answer> {
  const signal = AbortSignal.any([AbortSignal.timeout(ctx.timeoutMs), ctx.budget]);
  const response = await ctx.fetch(url, { method: init.method, headers: init.headers, body: init.body, signal, redirect: 'manual' });
  const body = await readCapped(response);
  return { status: response.status, headers: response.headers, body, response };
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    // An event stream (a GET a server should have refused) never ends: stop at the first chunk.
    const streaming = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      if (bytes >= MAX_POSTURE_BODY_BYTES || streaming) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_POSTURE_BODY_BYTES);
}

/** The JSON-RPC error of a JSON or one-event SSE answer, when it is one. */
export function rpcErrorOf(body: string): { code: number; message: string; data?: unknown } | null {
  const candidates = [
    body,
    ...body
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5)),
  ];
  for (const text of candidates) {
    try {
      const msg = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
      if (msg?.error && typeof msg.error.code === 'number')
        return { code: msg.error.code, message: String(msg.error.message ?? ''), data: msg.error.data };
    } catch {
      // not JSON: try the next form
    }
  }
  return null;
}
