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
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type WireErrorKind = 'unreachable' | 'tls' | 'timeout' | 'budget' | 'too_large' | 'wrong_id' | 'no_answer' | 'other';

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
  /** Set when the request or its body failed below HTTP: socket, TLS, timeout, cap. */
  error: { kind: WireErrorKind; code: string } | null;
  /** The JSON-RPC error of a JSON answer, when it was one. */
  rpcError: { code: number; message: string } | null;
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
  /** Wraps the base fetch (trace context, User-Agent); the wire's own pool still applies. */
  readonly middleware?: (next: FetchLike) => FetchLike;
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

  constructor(private readonly options: WireOptions) {
    this.maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const base: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
    this.baseFetch = options.middleware ? options.middleware(base) : base;
  }

  /** Closes the attempt's sockets, the 2025 GET stream's included. */
  async close(): Promise<void> {
    const pool = await this.pool;
    await pool?.destroy().catch(() => {});
  }

  /** The last exchange that carried `rpcMethod` (the step's own request, not a side stream). */
  last(rpcMethod: string): Exchange | undefined {
    return this.exchanges.findLast((x) => x.rpcMethod === rpcMethod);
  }

  readonly fetch: FetchLike = async (url, init = {}) => {
    const request = rpcRequestOf(init.body);
    const exchange: Exchange = {
      httpMethod: (init.method ?? 'GET').toUpperCase(),
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
      const dispatcher = this.options.fetch ? undefined : await (this.pool ??= freshPool());
      // Node's fetch frees a socket only a tick after its response body ended, and the SDK sends the next
      // request at once: without one turn of the event loop each run opened a second connection (a second
      // TCP and TLS handshake on the run's critical path, npm run bench). The 2025 GET stream, which runs
      // beside the requests and holds its socket to the end, waits one turn more, so the request the run
      // waits for (tools/list) takes the open socket and the stream opens its own connection in parallel.
      if (dispatcher) {
        await new Promise((resolve) => setImmediate(resolve));
        if (exchange.httpMethod === 'GET' && !request.method) await new Promise((resolve) => setImmediate(resolve));
      }
      response = await this.baseFetch(url, { ...init, signal, ...(dispatcher ? { dispatcher } : {}) } as RequestInit);
    } catch (e) {
      exchange.error = { kind: why(e), code: errorCode(e) };
      throw e;
    }
    exchange.status = response.status;
    exchange.contentType = response.headers.get('content-type');
    exchange.wwwAuthenticate = response.headers.get('www-authenticate');
    exchange.retryAfter = response.headers.get('retry-after');
    exchange.redirectTo = originOf(response.headers.get('location'), url);
    if (!response.body) return response;

    const maxBytes = this.maxBytes;
    // A JSON answer is checked for the request's id: the SDK drops an answer with a wrong id and waits
    // for its timeout, which would call a fast, broken server a slow one.
    const checkId = request.id !== undefined && (exchange.contentType ?? '').includes('json');
    // An event stream that ends without the answer leaves the SDK waiting for its timeout: a server
    // that sent garbage and hung up would read as a slow one.
    const checkStream = request.id !== undefined && (exchange.contentType ?? '').includes('text/event-stream');
    const kept: Uint8Array[] = [];
    let complete = false;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          exchange.bytes += chunk.byteLength;
          if (exchange.bytes > maxBytes) {
            exchange.error = { kind: 'too_large', code: `over ${maxBytes} bytes` };
            controller.error(new Error(`response body exceeded the ${maxBytes}-byte cap`));
            return;
          }
          if (checkId) kept.push(chunk);
          else controller.enqueue(chunk);
          if (checkStream) kept.push(chunk);
        },
        flush(controller) {
          complete = true;
          if (checkStream) {
            const missing = streamWithoutAnswer(Buffer.concat(kept), request.id);
            if (missing !== null) {
              exchange.error = { kind: 'no_answer', code: missing };
              controller.error(new Error(missing));
            }
            return;
          }
          if (!checkId) return;
          const body = Buffer.concat(kept);
          exchange.rpcError = rpcErrorOf(body);
          const wrong = wrongId(body, request.id);
          if (wrong !== null) {
            exchange.error = { kind: 'wrong_id', code: wrong };
            controller.error(new Error(wrong));
            return;
          }
          controller.enqueue(body);
        },
      }),
      { signal },
    );
    // Timeouts that strike while the body streams are recorded here, where the stream errors; an
    // abort after the body was read whole (the SDK closing the request) is no failure.
    signal.addEventListener('abort', () => {
      if (!complete) exchange.error ??= { kind: why(signal.reason), code: 'aborted while reading the body' };
    }, { once: true });
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function rpcRequestOf(body: RequestInit['body']): { method: string | null; id?: string | number } {
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

function rpcErrorOf(body: Uint8Array): { code: number; message: string } | null {
  try {
    const msg = JSON.parse(Buffer.from(body).toString('utf8')) as { error?: { code?: unknown; message?: unknown } };
    const e = msg?.error;
    return e && typeof e.code === 'number' ? { code: e.code, message: String(e.message ?? '').slice(0, 300) } : null;
  } catch {
    return null;
  }
}

/** Scans a finished event stream for the answer to `id`; describes what came instead, or null. */
function streamWithoutAnswer(body: Uint8Array, id: string | number | undefined): string | null {
  let events = 0;
  let malformed = 0;
  for (const line of Buffer.from(body).toString('utf8').split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    events++;
    try {
      const msg = JSON.parse(line.slice(5)) as { id?: unknown; result?: unknown; error?: unknown };
      if (msg.id === id && ('result' in msg || 'error' in msg)) return null;
    } catch {
      malformed++;
    }
  }
  return `the event stream ended without an answer (${events} event(s), ${malformed} not JSON)`;
}

function originOf(location: string | null, base: string | URL): string | null {
  if (!location) return null;
  try {
    return new URL(location, base).origin;
  } catch {
    return 'an unparsable Location';
  }
}

/** A description of the mismatch when a JSON-RPC answer carries another id than the request's. */
function wrongId(body: Uint8Array, id: string | number | undefined): string | null {
  let msg: unknown;
  try {
    msg = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return null; // not JSON: the SDK's parser reports it
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || !('id' in msg)) return null;
  const got = (msg as { id: unknown }).id;
  // `null` is the id of an error about a request the server could not read: the SDK reports it.
  if (got === null || got === id) return null;
  return `the JSON-RPC answer carries id ${JSON.stringify(got).slice(0, 40)}, not the request's ${JSON.stringify(id)}`;
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
async function freshPool(): Promise<Pool | undefined> {
  const key = Symbol.for('undici.globalDispatcher.1');
  const registry = globalThis as unknown as Record<symbol, { constructor: new (opts: object) => Pool } | undefined>;
  // Created lazily by the first fetch; a data: URL creates it without touching the network.
  if (!registry[key]) await fetch('data:,').then((r) => r.arrayBuffer()).catch(() => {});
  const global = registry[key];
  if (!global || global.constructor.name !== 'Agent') return undefined;
  return new global.constructor({});
}
