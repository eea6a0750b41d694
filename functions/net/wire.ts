/**
 * The canary's fetch: every HTTP request of a run goes through it. It does what the SDK's transport
 * does not, and a canary cannot do without:
 * - a timeout on every request, headers *and* body (a server that drips one byte a second, or an SSE
 *   stream of keep-alive comments, would otherwise hold a run open forever), and the run's budget;
 * - a cap on the bytes read from any one response, and an answer that cannot carry the response to
 *   its request ended at once (`body.ts`);
 * - a record of each exchange (`exchange.ts`), the evidence the classifier judges by, since the SDK's
 *   errors do not always keep the status, the socket error or the server's words;
 * - no standalone GET stream; a connection pool of its own and every socket its requests opened,
 *   closed when the attempt ends (see `freshPool`, `trackSockets`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { CanaryError, CanaryErrorCode } from '../common/errors.ts';
import type { RequestId } from './answer.ts';
import { inspectBody, mediaType, type BodyMode } from './body.ts';
import { errorCode, networkErrorKind, type Exchange } from './exchange.ts';
import { acceptInterimResponses } from './interim.ts';
import { diagnoseHandshakeFailure, isHandshakeFailure, serverAlert } from './tls-wall.ts';

export { errorCode, networkErrorKind, type Exchange, type WireErrorKind } from './exchange.ts';

export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface WireOptions {
  readonly timeoutMs: number;
  /** Aborts everything when the run's budget is spent. */
  readonly budget: AbortSignal;
  readonly maxResponseBytes?: number;
  /** Injected for tests; defaults to the global fetch. */
  readonly fetch?: FetchLike;
  /** Wraps the base fetch (trace context, User-Agent); the wire's own pool still applies. */
  readonly middleware?: (next: FetchLike) => FetchLike;
}

/**
 * The sockets each wire's requests open, found through Node's `net.client.socket` channel (every TCP
 * connect, one still in progress included) and undici's `undici:client:connected` channel (TLS sockets
 * too, once connected), and the async context of the request that opened them. Destroying the pool does
 * not end a connect still in progress: a server that never completes the TCP handshake kept the process
 * alive ~10 s after the verdict. `close()` destroys what this wire opened, and nothing of a run beside it.
 * A connected socket is also where two things only the socket shows are seen: an unsolicited `100
 * Continue` (interim.ts) and a TLS 1.3 alert that arrives after the handshake (`certificate_required`).
 */
const socketOwner = new AsyncLocalStorage<Connections>();
let socketsTracked = false;
function trackSockets(): void {
  if (socketsTracked) return;
  socketsTracked = true;
  subscribe('net.client.socket', (m) => socketOwner.getStore()?.adopt((m as { socket: Socket }).socket));
  subscribe('undici:client:connected', (m) => socketOwner.getStore()?.connected((m as { socket: Socket }).socket));
}

/** The part of undici's Dispatcher the wire uses. */
interface Pool {
  destroy(): Promise<void>;
}

/**
 * Requests on a connection pool of their own whose sockets, a connect in progress included, all end at
 * `close()`: the attempt's wire uses one, and so does anything else that talks to the endpoint beside a
 * run (the posture checks). With an injected `fetch` (tests) it only tracks sockets.
 */
export class Connections {
  private pool: Promise<Pool | undefined> | undefined;
  private readonly sockets = new Set<Socket>();
  /** TLS alerts the server sent on connected sockets, in order (the socket error undici reports is often only "other side closed"). */
  readonly tlsAlerts: string[] = [];

  constructor(
    private readonly connectTimeoutMs: number,
    private readonly injected?: FetchLike,
  ) {
    trackSockets();
  }

  /** `base` (the injected or global fetch, maybe wrapped) sent on this pool. */
  async send(base: FetchLike, url: string | URL, init: RequestInit): Promise<Response> {
    const dispatcher = this.injected ? undefined : await (this.pool ??= freshPool(this.connectTimeoutMs));
    // Node's fetch frees a socket only a tick after its response body ended, and the SDK sends the next
    // request at once: without one turn of the event loop each run opened a second connection (a second
    // TCP and TLS handshake on the run's critical path, npm run bench).
    if (dispatcher) await new Promise((resolve) => setImmediate(resolve));
    return socketOwner.run(this, () => base(url, { ...init, ...(dispatcher ? { dispatcher } : {}) } as RequestInit));
  }

  adopt(socket: Socket): void {
    this.sockets.add(socket);
  }

  /** A socket undici connected for these requests, before its first request is written. */
  connected(socket: Socket): void {
    this.sockets.add(socket);
    acceptInterimResponses(socket);
    if ('encrypted' in socket) {
      socket.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code && serverAlert(e.code)) this.tlsAlerts.push(e.code);
      });
    }
  }

  /** Closes every socket these requests opened, a connect still in progress included. */
  async close(): Promise<void> {
    const pool = await this.pool;
    await pool?.destroy().catch(() => {});
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}

export class Wire {
  readonly exchanges: Exchange[] = [];
  private readonly maxBytes: number;
  private readonly baseFetch: FetchLike;
  private readonly connections: Connections;

  constructor(private readonly options: WireOptions) {
    this.maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const base: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
    this.baseFetch = options.middleware ? options.middleware(base) : base;
    this.connections = new Connections(options.timeoutMs, options.fetch);
  }

  /** Closes the attempt's sockets, a connect still in progress included. */
  close(): Promise<void> {
    return this.connections.close();
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
    const alertsBefore = this.connections.tlsAlerts.length;
    try {
      response = await this.connections.send(this.baseFetch, url, { ...init, signal });
    } catch (e) {
      // A TLS alert the socket saw names the failure better than the close that followed it.
      const alert = this.connections.tlsAlerts.slice(alertsBefore).at(-1);
      exchange.error =
        alert && !timeout.aborted && !this.options.budget.aborted ? { kind: 'tls', code: alert } : { kind: why(e), code: errorCode(e) };
      if (exchange.error.kind === 'tls' && isHandshakeFailure(exchange.error.code) && new URL(url).protocol === 'https:') {
        exchange.tlsWall = await diagnoseHandshakeFailure(new URL(url), this.options.timeoutMs, this.options.budget);
      }
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
      exchange.error = {
        kind: 'wrong_answer',
        code: 'HTTP 202 Accepted to a request: 202 answers notifications; a request needs its response',
      };
      throw new CanaryError(CanaryErrorCode.answerRefused, exchange.error.code, { kind: 'wrong_answer' });
    }
    if (!response.body) return response;
    const type = mediaType(exchange.contentType);
    // A request's answer is checked as JSON or as an event stream; anything else (a login page served
    // with 200) is read for its words, which the detail then shows beside the SDK's complaint.
    const mode: BodyMode = !ok
      ? 'words'
      : request.id === undefined
        ? 'pass'
        : type === 'text/event-stream'
          ? 'sse'
          : type === 'application/json'
            ? 'json'
            : 'words';
    // SEP-1699 resumption belongs to the 2025-11-25 era's sessions; a 2026-07-28 answer stream (and the
    // discover probe) is the request's only channel: ended without the answer, it is no answer.
    const version = headers.get('mcp-protocol-version') ?? '';
    const resumable = request.method !== 'server/discover' && !/^2026-/.test(version);
    const body = inspectBody(response.body, { exchange, mode, id: request.id, maxBytes: this.maxBytes, signal, why, resumable });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
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
  if (!registry[key])
    await fetch('data:,')
      .then((r) => r.arrayBuffer())
      .catch(() => {});
  const global = registry[key];
  if (!global || global.constructor.name !== 'Agent') return undefined;
  // The connect timeout is the request timeout: a server that never completes the TCP handshake would
  // otherwise keep a connect pending (undici's default is 10 s) and the process alive after the verdict.
  return new global.constructor({ connect: { timeout: connectTimeoutMs } });
}
