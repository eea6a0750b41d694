/**
 * W3C Trace Context on every request of a run (https://www.w3.org/TR/trace-context/): one trace per
 * run (the verdict's `traceId`), one span per HTTP request — each request is one step's client span —
 * so an on-call engineer can open the server's own trace of the run that failed. On 2026-07-28 the
 * same `traceparent` also rides in the request's `_meta`, under the key the spec reserves (SEP-414,
 * the SDK's TRACEPARENT_META_KEY): servers behind proxies that drop headers still see it.
 * Also sets `User-Agent: mcp-canary/<version>`, so servers can tell synthetic traffic apart.
 *
 * A fetch middleware in the SDK's own shape (`(next) => fetch`); the SDK has none for trace context.
 */
import { configError } from '../common/errors.ts';
import { newSpanId } from '../common/trace.ts';
import { PROTOCOL_VERSION_META_KEY, TRACEPARENT_META_KEY, type Middleware } from '@modelcontextprotocol/client';
import { USER_AGENT } from '../common/version.ts';
import type { FetchLike } from './wire.ts';

export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;
export const TRACEPARENT_PATTERN = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** `00-<trace id>-<span id>-01`: version 00, sampled (the canary wants its few requests traced). */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

export interface TraceContextOptions {
  readonly traceId: string;
  /** Span ids, for tests that want to see them. @default - random */
  readonly newSpanId?: () => string;
  /** Called with each request's traceparent (the spans of a run, in order). */
  readonly onSpan?: (traceparent: string) => void;
}

export function withTraceContext(opts: TraceContextOptions): Middleware {
  if (!TRACE_ID_PATTERN.test(opts.traceId))
    throw configError(`traceId must be 32 lowercase hex digits, got ${JSON.stringify(opts.traceId)}`);
  const spanId = opts.newSpanId ?? newSpanId;
  return (next: FetchLike) =>
    async (url, init = {}) => {
      const tp = traceparent(opts.traceId, spanId());
      opts.onSpan?.(tp);
      const headers = new Headers(init.headers);
      headers.set('traceparent', tp);
      headers.set('user-agent', USER_AGENT);
      return next(url, { ...init, headers, body: withMetaTraceparent(init.body, tp) });
    };
}

/**
 * Adds `params._meta.traceparent` to a 2026-07-28 message — recognised by the `_meta` envelope every
 * modern request carries — and leaves anything else (2025 bodies, non-JSON, batches) byte for byte.
 */
export function withMetaTraceparent(body: RequestInit['body'], tp: string): RequestInit['body'] {
  if (typeof body !== 'string') return body;
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch {
    return body;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return body;
  const params = (msg as { params?: unknown }).params;
  if (params === null || typeof params !== 'object') return body;
  const meta = (params as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== 'object' || !(PROTOCOL_VERSION_META_KEY in meta)) return body;
  return JSON.stringify({ ...msg, params: { ...params, _meta: { ...meta, [TRACEPARENT_META_KEY]: tp } } });
}
