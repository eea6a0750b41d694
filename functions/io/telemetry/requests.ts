/**
 * The requests of one run as they were sent: each one's `traceparent` span id (what the server saw as
 * its parent), its step, when it went out, when its response arrived and how it ended (answer-watch.ts
 * reads the response off the body as it streams past). A fetch middleware that sits inside the trace
 * context (judge/context.ts `observe`), so the ids in the exported trace are the ids on the wire. Light
 * on purpose: no OpenTelemetry here, it runs whether or not anything is exported.
 */
import type { FetchMiddleware } from '../../base/common/run-context.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import { SERVER_CARD_PATH } from '../../base/common/well-known.ts';
import { mediaType } from '../../base/net/body.ts';
import { errorCode } from '../../base/net/exchange.ts';
import { MAX_RESPONSE_BYTES } from '../../base/net/wire.ts';
import { watchAnswer, type AnswerOutcome } from './answer-watch.ts';

/**
 * What a request was for: a step of the run, the Server Card read after the verdict (its own step: its
 * 404 is not the step it fell after), or something beside the steps (the 2025 SSE stream, posture).
 */
export type RequestStep =
  | 'health'
  | 'discover'
  | 'initialize'
  | 'tools/list'
  | 'tools/call'
  | 'resources/list'
  | 'resources/read'
  | 'prompts/list'
  | 'prompts/get'
  | 'DELETE'
  | 'server card'
  | 'other';

export interface RequestRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly step: RequestStep;
  readonly httpMethod: string;
  /** The JSON-RPC method, when the body was one message. */
  readonly rpcMethod?: string;
  readonly rpcId?: string;
  /** `params.name` of a tools/call: the canary tool (from the config). */
  readonly toolName?: string;
  /** The `MCP-Protocol-Version` the request carried (every request after the handshake, and 2026-07-28's own). */
  readonly protocolVersion?: string;
  /** The host as OTel's `server.address` has it: an IPv6 address without its brackets. */
  readonly serverAddress: string;
  readonly serverPort: number;
  /** `url.full`: the request's URL shown by its structure (shown-url.ts), never as sent. */
  readonly urlFull: string;
  /** Wall ms. */
  readonly startedAt: number;
  /**
   * Wall ms: when the response arrived (its JSON body read, or its event on a stream), else the headers (a
   * notification's 202, an answer with nothing to read), or the error.
   */
  readonly endedAt: number;
  readonly status?: number;
  /**
   * Why the operation got no response, in `error.type`'s words: with no `status`, no answer at all
   * (`timeout`, or the innermost socket or TLS code: `ECONNREFUSED`, `CERT_HAS_EXPIRED`); with one, an
   * answer that never carried the response (`no_answer`, `wrong_id`, `wrong_answer`, `truncated`, `too_large`, `timeout`).
   */
  readonly error?: string;
  /** The JSON-RPC error code the response carried (`"-32602"`), `_OTHER` when it was not an integer. */
  readonly rpcError?: string;
  /** A `tools/call` answered with `isError: true`. */
  readonly toolError?: true;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const STEP_OF_METHOD: Readonly<Record<string, RequestStep>> = {
  'server/discover': 'discover',
  initialize: 'initialize',
  'notifications/initialized': 'initialize',
  'tools/list': 'tools/list',
  'tools/call': 'tools/call',
  // A task's polls and its cancel are the tool call's step (SEP-2663).
  'tasks/get': 'tools/call',
  'tasks/cancel': 'tools/call',
  'resources/list': 'resources/list',
  'resources/read': 'resources/read',
  'prompts/list': 'prompts/list',
  'prompts/get': 'prompts/get',
};

export class RequestLog {
  readonly records: RequestRecord[] = [];

  /** `healthUrl`: the target's health path, so its GET is told apart from the 2025 SSE stream's. */
  private readonly healthUrl: string | undefined;

  constructor(
    healthUrl?: string,
    private readonly wallNow: () => number = Date.now,
  ) {
    this.healthUrl = healthUrl ? new URL(healthUrl).href : undefined;
  }

  readonly middleware: FetchMiddleware = (next) => async (url, init) => {
    const sentHeaders = new Headers(init?.headers);
    const tp = TRACEPARENT.exec(sentHeaders.get('traceparent') ?? '');
    if (!tp) return next(url, init);
    const protocolVersion = sentHeaders.get('mcp-protocol-version');
    const startedAt = this.wallNow();
    const where = new URL(String(url));
    const httpMethod = (init?.method ?? 'GET').toUpperCase();
    const { rpcIdAsSent, ...rpc }: Partial<Rpc> = rpcOf(init?.body) ?? {};
    const base = {
      traceId: tp[1]!,
      spanId: tp[2]!,
      step: this.stepOf(httpMethod, where.href, rpc.rpcMethod),
      httpMethod,
      ...rpc,
      ...(protocolVersion ? { protocolVersion } : {}),
      serverAddress: where.hostname.replace(/^\[(.*)\]$/, '$1'),
      urlFull: shownUrl(where.href),
      serverPort: Number(where.port) || (where.protocol === 'https:' ? 443 : 80),
      startedAt,
    };
    let res: Response;
    try {
      res = await next(url, init);
    } catch (e) {
      // A timeout (the request's signal ended it: the wire's, the SDK's or the run's budget), else the socket's own code.
      this.records.push({ ...base, endedAt: this.wallNow(), error: init?.signal?.aborted ? 'timeout' : errorCode(e) });
      throw e;
    }
    const at = this.records.push({ ...base, endedAt: this.wallNow(), status: res.status }) - 1;
    // A notification is done at its headers (202); a request is done when its response arrives.
    if (rpcIdAsSent === undefined || !res.body) return res;
    const type = mediaType(res.headers.get('content-type'));
    const ok = res.status >= 200 && res.status < 300;
    if (type !== 'application/json' && type !== 'text/event-stream') {
      // A 2xx that is neither (a login page served with 200): no response will come of it.
      if (ok) this.records[at] = { ...this.records[at]!, error: 'wrong_answer' };
      return res;
    }
    const body = watchAnswer(res.body, {
      id: rpcIdAsSent,
      sse: type === 'text/event-stream',
      ok,
      toolCall: rpc.rpcMethod === 'tools/call',
      signal: init?.signal,
      maxBytes: MAX_RESPONSE_BYTES,
      now: this.wallNow,
      done: (o) => (this.records[at] = answered(this.records[at]!, o)),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };

  private stepOf(httpMethod: string, url: string, rpcMethod: string | undefined): RequestStep {
    if (rpcMethod) return STEP_OF_METHOD[rpcMethod] ?? 'other';
    if (httpMethod === 'DELETE') return 'DELETE';
    if (httpMethod === 'GET' && this.healthUrl && url === this.healthUrl) return 'health';
    if (httpMethod === 'GET' && new URL(url).pathname === SERVER_CARD_PATH) return 'server card';
    return 'other';
  }
}

function answered(r: RequestRecord, o: AnswerOutcome): RequestRecord {
  return {
    ...r,
    endedAt: o.at,
    ...(o.rpcError ? { rpcError: o.rpcError } : {}),
    ...(o.toolError ? { toolError: true } : {}),
    ...(o.problem ? { error: o.problem } : {}),
  };
}

interface Rpc {
  readonly rpcMethod: string;
  readonly rpcId?: string;
  /** The id as the body carried it (a number stays a number: the response must carry the same). */
  readonly rpcIdAsSent?: string | number;
  readonly toolName?: string;
}

/** The JSON-RPC method, id and tool name of a one-message body; nothing else of the body is kept. */
function rpcOf(body: unknown): Rpc | undefined {
  if (typeof body !== 'string') return undefined;
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return undefined;
  const { method, id, params } = msg as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return undefined;
  const toolName = method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
  return {
    rpcMethod: method,
    ...(typeof id === 'string' || typeof id === 'number' ? { rpcId: String(id), rpcIdAsSent: id } : {}),
    ...(toolName ? { toolName } : {}),
  };
}
