/**
 * The canary's fetch: every HTTP request of a run goes through it. It does three things the SDK's
 * transport does not, and that a canary cannot do without:
 * - a timeout on every request, headers *and* body (a server that drips one byte a second, or an SSE
 *   stream of keep-alive comments, would otherwise hold a run open forever), and the run's budget;
 * - a cap on the bytes read from any one response (a 200 MB answer must not exhaust the Lambda);
 * - a record of each exchange (JSON-RPC method, status, network error), the evidence the classifier
 *   judges by, since the SDK's errors do not always keep the status or the socket error;
 * - a connection pool of its own, closed when the attempt ends (see `freshPool`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { oneLine } from '../redact.ts';
import { judgeJsonBody, judgeMessage, SseScanner, type AnswerFacts, type RequestId } from './answer.ts';

export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** A failed answer's body is read for the server's own words up to this many bytes. */
const MAX_WORDS_BYTES = 64 * 1024;

export type WireErrorKind =
  | 'unreachable' | 'tls' | 'timeout' | 'budget' | 'too_large' | 'wrong_id' | 'no_answer' | 'wrong_answer' | 'truncated' | 'other';

export interface Exchange {
  readonly httpMethod: string;
  /** The JSON-RPC method of the request body (`tools/call`, …), or null (GET, DELETE, health). */
  readonly rpcMethod: string | null;
  status: number | null;
  contentType: string | null;
  wwwAuthenticate: string | null;
  retryAfter: string | null;
  /** Where a 3xx pointed (origin only: a path or query may carry a key). */
  redirectTo: string | null;
  /** Whether that redirect stayed on the request's own origin (a loop there is not the cross-origin rule). */
  redirectSameOrigin?: boolean;
  /** Set when the request or its body failed below HTTP: socket, TLS, timeout, cap. */
  error: { kind: WireErrorKind; code: string } | null;
  /** The JSON-RPC error of the answer (JSON or event stream), when it was one. */
  rpcError: { code: number; message: string; data?: unknown } | null;
  /** A `server/discover` result's `supportedVersions`, as the server offered them. */
  supportedVersions?: string[] | null;
  /** A `tools/list` result's tool names as they came over the wire, before the client dropped any. */
  toolNames?: string[] | null;
  /** The server's own words in a failed (non-2xx) answer: its JSON-RPC error message or the first line of a short text body. */
  serverWords?: string | null;
  /** An event stream that ended after an event id without the answer: the SEP-1699 resumption point. */
  resumeFrom?: string | null;
  /** Content-Length as the server declared it (to describe a body cut short). */
  declaredLength?: number | null;
  bytes: number;
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface WireOptions {
  readonly timeoutMs: number;
  /** Aborts everything when the run's budget is spent. */
  readonly budget: AbortSignal;
  readonly maxResponseBytes?: number;
  /** Injected for tests; defaults to the global fetch. */
  readonly fetch?: FetchLike;
}

/**
 * The sockets each wire's requests open, found through Node's `net.client.socket` channel and the
 * async context of the request that opened them. Destroying the pool does not end a connect still in
 * progress: a server that never completes the TCP handshake kept the process alive ~10 s after the
 * verdict. `close()` destroys what this wire opened, and nothing of a run beside it.
 */
const socketOwner = new AsyncLocalStorage<Set<Socket>>();
let socketsTracked = false;
function trackSockets(): void {
  if (socketsTracked) return;
  socketsTracked = true;
  subscribe('net.client.socket', (m) => socketOwner.getStore()?.add((m as { socket: Socket }).socket));
}

/** The part of undici's Dispatcher the wire uses. */
interface Pool {
  destroy(): Promise<void>;
}

export class Wire {
  readonly exchanges: Exchange[] = [];
  private readonly maxBytes: number;
  private readonly baseFetch: FetchLike;
  private pool: Promise<Pool | undefined> | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: WireOptions) {
    this.maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.baseFetch = options.fetch ?? ((url, init) => fetch(url, init));
    trackSockets();
  }

  /** Closes the attempt's sockets, a connect still in progress included. */
  async close(): Promise<void> {
    const pool = await this.pool;
    await pool?.destroy().catch(() => {});
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  /** The last exchange that carried `rpcMethod` (the step's own request, not a side stream). */
  last(rpcMethod: string): Exchange | undefined {
    return this.exchanges.findLast((x) => x.rpcMethod === rpcMethod);
  }

  readonly fetch: FetchLike = async (url, init = {}) => {
    const request = rpcRequestOf(init.body);
    const headers = new Headers(init.headers);
    const httpMethod = (init.method ?? 'GET').toUpperCase();
    // A canary needs no server-initiated messages, and the SDK has no option to skip the 2025 era's
    // standalone GET stream it opens after `initialized` (on one server it arrived after our DELETE).
    // Answer it here with the 405 a server without that stream gives: the SDK then goes on without
    // it. A GET with Last-Event-ID is a SEP-1699 resumption and goes out; a health GET asks no SSE.
    if (httpMethod === 'GET' && !headers.has('last-event-id') && (headers.get('accept') ?? '').includes('text/event-stream')) {
      return new Response(null, { status: 405, statusText: 'Not opened by the canary' });
    }
    const exchange: Exchange = {
      httpMethod,
      rpcMethod: request.method,
      status: null,
      contentType: null,
      wwwAuthenticate: null,
      retryAfter: null,
      redirectTo: null,
      error: null,
      rpcError: null,
      bytes: 0,
    };
    this.exchanges.push(exchange);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signals = [timeout, this.options.budget];
    if (init.signal) signals.push(init.signal);
    const signal = AbortSignal.any(signals);
    const why = (e: unknown) => (timeout.aborted ? 'timeout' : this.options.budget.aborted ? 'budget' : networkErrorKind(e));

    let response: Response;
    try {
      const dispatcher = this.options.fetch ? undefined : await (this.pool ??= freshPool(this.options.timeoutMs));
      // Node's fetch frees a socket only a tick after its response body ended, and the SDK sends the next
      // request at once: without one turn of the event loop each run opened a second connection (a second
      // TCP and TLS handshake on the run's critical path, npm run bench).
      if (dispatcher) await new Promise((resolve) => setImmediate(resolve));
      response = await socketOwner.run(this.sockets, () => this.baseFetch(url, { ...init, signal, ...(dispatcher ? { dispatcher } : {}) } as RequestInit));
    } catch (e) {
      exchange.error = { kind: why(e), code: errorCode(e) };
      throw e;
    }
    exchange.status = response.status;
    exchange.contentType = response.headers.get('content-type');
    exchange.wwwAuthenticate = response.headers.get('www-authenticate');
    exchange.retryAfter = response.headers.get('retry-after');
    exchange.redirectTo = originOf(response.headers.get('location'), url);
    if (exchange.redirectTo) exchange.redirectSameOrigin = exchange.redirectTo === originOf(String(url), url);
    const declared = Number(response.headers.get('content-length'));
    exchange.declaredLength = Number.isFinite(declared) && response.headers.has('content-length') ? declared : null;

    const ok = response.status >= 200 && response.status < 300;
    if (request.id !== undefined && response.status === 202) {
      // 202 Accepted is the answer to a notification; a request needs its response. The SDK would
      // take it as "nothing to read" and wait for its timeout.
      await response.body?.cancel().catch(() => {});
      exchange.error = { kind: 'wrong_answer', code: 'HTTP 202 Accepted to a request: 202 answers notifications; a request needs its response' };
      throw new Error(exchange.error.code);
    }
    if (!response.body) return response;
    const type = mediaType(exchange.contentType);
    // A request's answer is checked as JSON or as an event stream; anything else (a login page served
    // with 200) is read for its words, which the detail then shows beside the SDK's complaint.
    const mode: BodyMode = !ok ? 'words' : request.id === undefined ? 'pass' : type === 'text/event-stream' ? 'sse' : type === 'application/json' ? 'json' : 'words';
    // SEP-1699 resumption belongs to the 2025-11-25 era's sessions; a 2026-07-28 answer stream (and the
    // discover probe) is the request's only channel: ended without the answer, it is no answer.
    const version = headers.get('mcp-protocol-version') ?? '';
    const resumable = request.method !== 'server/discover' && !/^2026-/.test(version);
    const body = inspectBody(response.body, { exchange, mode, id: request.id, maxBytes: this.maxBytes, signal, why, resumable });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

type BodyMode = 'pass' | 'json' | 'sse' | 'words';

interface BodyContext {
  readonly exchange: Exchange;
  readonly mode: BodyMode;
  readonly id: RequestId | undefined;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly why: (e: unknown) => WireErrorKind;
  /** Whether an event stream that ends after an event id may be resumed (SEP-1699). */
  readonly resumable: boolean;
}

/**
 * The body as the SDK reads it, checked on the way: the byte cap; a JSON answer held whole and judged
 * (right id, exactly one of result and error); an event stream judged event by event; a failed
 * answer's words kept for the detail. A stream that breaks after the headers is recorded as cut short,
 * not as "cannot connect".
 */
function inspectBody(source: ReadableStream<Uint8Array>, c: BodyContext): ReadableStream<Uint8Array> {
  const { exchange, mode, id } = c;
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const facts: AnswerFacts = { rpcError: null, supportedVersions: null };
  const scanner = mode === 'sse' ? new SseScanner() : null;
  const kept: Uint8Array[] = [];
  let answered = false;
  let complete = false;

  // A timeout that strikes while the body streams is recorded here; an abort after the body was read
  // whole (the SDK closing the request) is no failure.
  c.signal.addEventListener('abort', () => {
    if (!complete) exchange.error ??= { kind: c.why(c.signal.reason), code: 'aborted while reading the body' };
  }, { once: true });

  const keepFacts = () => {
    exchange.rpcError = facts.rpcError ?? exchange.rpcError;
    if (facts.supportedVersions) exchange.supportedVersions = facts.supportedVersions;
    if (facts.toolNames) exchange.toolNames = facts.toolNames;
  };
  // The SDK ignores an event stream that errors or ends without the answer, and waits for its
  // timeout; a synthetic JSON-RPC error answering the request ends it now. The wire record, not this
  // message, is what the classifier reads.
  const failSse = (controller: ReadableStreamDefaultController<Uint8Array>, kind: WireErrorKind, code: string): true => {
    exchange.error ??= { kind, code };
    complete = true;
    reader.cancel().catch(() => {});
    controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: `mcp-canary: ${code}` } })}\n\n`));
    controller.close();
    return true;
  };

  return new ReadableStream<Uint8Array>({
    // A pull that enqueues nothing is not called again: read on until something is passed on or ended.
    async pull(controller) {
      while (!(await step(controller)));
    },
    cancel(reason) {
      complete = true;
      return reader.cancel(reason);
    },
  });

  /** One read from the source; true once something was enqueued, or the stream ended or failed. */
  async function step(controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await reader.read();
    } catch (e) {
      const kind: WireErrorKind = c.signal.aborted ? c.why(c.signal.reason) : 'truncated';
      const code = kind === 'truncated' ? cutShort(exchange, e) : 'aborted while reading the body';
      if (mode === 'sse' && !answered && !scanner!.lastEventId && !c.signal.aborted) return failSse(controller, kind, code);
      exchange.error ??= { kind, code };
      complete = true;
      controller.error(e);
      return true;
    }
    if (r.done) {
      complete = true;
      if (mode === 'json') {
        const text = Buffer.concat(kept).toString('utf8');
        const j = judgeJsonBody(text, id!, facts);
        keepFacts();
        if (j && j.answered === false) {
          exchange.error = { kind: /carries id/.test(j.problem) ? 'wrong_id' : 'wrong_answer', code: j.problem };
          controller.error(new Error(j.problem));
          return true;
        }
        controller.enqueue(Buffer.concat(kept));
      } else if (mode === 'words') {
        const text = Buffer.concat(kept).toString('utf8');
        exchange.serverWords = serverWords(text, exchange.contentType);
        // The JSON-RPC error of a failed answer is evidence too (-32021, -32022, an uninitialized 2025 server).
        judgeJsonBody(text, id ?? '', facts);
        keepFacts();
        controller.enqueue(Buffer.concat(kept));
      } else if (mode === 'sse' && !answered) {
        if (c.resumable && scanner!.lastEventId !== null) {
          // SEP-1699: a server may close the stream after an event id and expects the client to
          // come back with GET + Last-Event-ID after `retry` ms; the SDK's transport does that.
          exchange.resumeFrom = scanner!.lastEventId;
        } else {
          return failSse(controller, 'no_answer', `the event stream ended without an answer (${scanner!.events} event(s), ${scanner!.malformed} not JSON)`);
        }
      }
      controller.close();
      return true;
    }
    const chunk = r.value;
    exchange.bytes += chunk.byteLength;
    if (exchange.bytes > c.maxBytes) {
      exchange.error = { kind: 'too_large', code: `over ${c.maxBytes} bytes` };
      complete = true;
      reader.cancel().catch(() => {});
      if (mode === 'sse' && !answered) return failSse(controller, 'too_large', `over ${c.maxBytes} bytes`);
      controller.error(new Error(`response body exceeded the ${c.maxBytes}-byte cap`));
      return true;
    }
    if (mode === 'json' || mode === 'words') {
      if (mode === 'json' || exchange.bytes <= MAX_WORDS_BYTES) kept.push(chunk);
      return false;
    }
    if (mode === 'sse' && !answered) {
      for (const data of scanner!.push(decoder.decode(chunk, { stream: true }))) {
        if (data === '') continue; // a priming event (SEP-1699) carries an id and no message
        scanner!.events++;
        let msg: unknown;
        try {
          msg = JSON.parse(data);
        } catch {
          scanner!.malformed++;
          continue;
        }
        const j = judgeMessage(msg, id!, facts);
        keepFacts();
        if (j.answered === false) return failSse(controller, /carries id/.test(j.problem) ? 'wrong_id' : 'wrong_answer', j.problem);
        if (j.answered) answered = true;
      }
    }
    controller.enqueue(chunk);
    return true;
  }
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** How a body that broke off after its headers is described: bytes read against those promised. */
function cutShort(x: Exchange, e: unknown): string {
  const promised = x.declaredLength !== null && x.declaredLength !== undefined ? ` of the ${x.declaredLength} its Content-Length promised` : '';
  return `the answer broke off after ${x.bytes} byte(s)${promised} (${errorCode(e)})`;
}

/**
 * The server's own words in a failed answer, for the detail: a JSON-RPC `error.message` (or an
 * `error`/`message` string of a plain JSON error), else the first line of a short text body. HTML
 * pages are skipped: their first line is markup, not words.
 */
export function serverWords(text: string, contentType: string | null): string | null {
  const type = mediaType(contentType);
  const trimmed = text.trim();
  if (!trimmed) return null;
  if (type.includes('json') || /^[[{]/.test(trimmed)) {
    try {
      const j = JSON.parse(trimmed) as { error?: unknown; message?: unknown; error_description?: unknown };
      const e = j?.error;
      // A JSON-RPC error's message first, then the plain shapes APIs use, the most readable first.
      const candidates = [typeof e === 'object' && e !== null ? (e as { message?: unknown }).message : undefined, j?.message, j?.error_description, e];
      const words = candidates.find((w): w is string => typeof w === 'string' && w.trim() !== '') ?? null;
      return words ? oneLine(words, 200) : null;
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (type === 'text/html' || /^<(!doctype|html)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(trimmed)?.[1];
    return title ? oneLine(title, 200) : null;
  }
  const first = trimmed.split(/\r?\n/, 1)[0]!;
  return oneLine(first, 200);
}

function rpcRequestOf(body: RequestInit['body']): { method: string | null; id?: RequestId } {
  if (typeof body !== 'string') return { method: null };
  try {
    const msg = JSON.parse(body) as { method?: unknown; id?: unknown } | Array<{ method?: unknown }>;
    if (Array.isArray(msg)) return { method: typeof msg[0]?.method === 'string' ? msg[0].method : null };
    const method = typeof msg.method === 'string' ? msg.method : null;
    return typeof msg.id === 'string' || typeof msg.id === 'number' ? { method, id: msg.id } : { method };
  } catch {
    return { method: null };
  }
}

function originOf(location: string | null, base: string | URL): string | null {
  if (!location) return null;
  try {
    return new URL(location, base).origin;
  } catch {
    return 'an unparsable Location';
  }
}

const TLS_CODE = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_|ERR_OSSL_|HOSTNAME_MISMATCH|EPROTO$)/;
const NET_CODE = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|ETIMEDOUT|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_CLOSED|UND_ERR_CONNECT_TIMEOUT)$/;

/** The innermost error code in a cause chain (undici wraps socket errors in "fetch failed"). */
export function errorCode(e: unknown): string {
  let code = '';
  for (let cur: unknown = e, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') code = c;
  }
  if (!code && (e as { cause?: { message?: unknown } })?.cause?.message === 'bad port') return 'bad port';
  return code || (e instanceof Error ? e.name : 'error');
}

export function networkErrorKind(e: unknown): WireErrorKind {
  const code = errorCode(e);
  // fetch refuses some ports outright (1, 9, 6000, …), with no code: the endpoint cannot be reached.
  if ((e as { cause?: { message?: unknown } })?.cause?.message === 'bad port') return 'unreachable';
  if (TLS_CODE.test(code)) return 'tls';
  if (NET_CODE.test(code)) return code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' ? 'timeout' : 'unreachable';
  if (code === 'TimeoutError') return 'timeout';
  return 'other';
}

/**
 * A connection pool for one attempt. Node's fetch keeps sockets alive in one process-wide pool; a
 * warm Lambda that thaws holding a socket its server has since closed, or a server restarted between
 * runs, would cost a run a false `unreachable` (Toolhive's stale keep-alive bug), and sockets of a
 * hung server would outlive the run. Node exposes no Agent class for its built-in fetch (and the
 * undici package would add ~500 KB to the bundle), but its undici registers the global dispatcher
 * under this well-known symbol, so we make a sibling of the same class. A custom global dispatcher
 * (a proxy agent) is left in charge: we do not know how to copy it.
 */
async function freshPool(connectTimeoutMs: number): Promise<Pool | undefined> {
  const key = Symbol.for('undici.globalDispatcher.1');
  const registry = globalThis as unknown as Record<symbol, { constructor: new (opts: object) => Pool } | undefined>;
  // Created lazily by the first fetch; a data: URL creates it without touching the network.
  if (!registry[key]) await fetch('data:,').then((r) => r.arrayBuffer()).catch(() => {});
  const global = registry[key];
  if (!global || global.constructor.name !== 'Agent') return undefined;
  // The connect timeout is the request timeout: a server that never completes the TCP handshake would
  // otherwise keep a connect pending (undici's default is 10 s) and the process alive after the verdict.
  return new global.constructor({ connect: { timeout: connectTimeoutMs } });
}
