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
 *   closed when the attempt ends (connections.ts).
 */
import { CanaryError, CanaryErrorCode } from '../common/errors.ts';
import type { FetchLike, FetchMiddleware, Reach } from '../common/run-context.ts';
import { shownUrl } from '../common/shown-url.ts';
import type { RequestId } from './answer.ts';
import { inspectBody, mediaType, type BodyMode } from './body.ts';
import { Connections } from './connections.ts';
import { errorCode, networkErrorKind, newExchange, notHttp, type Exchange, type WireErrorKind } from './exchange.ts';
import { proxyFailure } from './proxy-words.ts';
import { tunnelSilent } from './proxy-tunnel.ts';
import { proxyUrlOf, tlsOptions } from './reach.ts';
import { diagnoseHandshakeFailure, diagnoseHandshakeReset, isHandshakeFailure, speaksTls } from './tls-wall.ts';

export { errorCode, networkErrorKind, newExchange, type Exchange, type WireErrorKind } from './exchange.ts';

/** A connection the server ended: reset, closed, or gone under a write. */
const RESET = /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/;

export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type { FetchLike } from '../common/run-context.ts';

export interface WireOptions {
  readonly timeoutMs: number;
  /** Aborts everything when the run's budget is spent. */
  readonly budget: AbortSignal;
  readonly maxResponseBytes?: number;
  /** Injected for tests; defaults to Node's fetch, on a pool of the wire's own. */
  readonly fetch?: FetchLike | undefined;
  /** Wraps the base fetch (trace context, User-Agent); the wire's own pool still applies. */
  readonly middleware?: FetchMiddleware | undefined;
  /** The target's client certificate, private CAs and proxy (net/reach.ts). */
  readonly reach?: Reach | undefined;
}

export class Wire {
  readonly exchanges: Exchange[] = [];
  private readonly maxBytes: number;
  private readonly connections: Connections;
  private readonly send: FetchLike;

  constructor(private readonly options: WireOptions) {
    this.maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.connections = new Connections(options.timeoutMs, options.fetch, options.reach);
    this.send = this.connections.fetch(options.middleware);
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
    const exchange = this.record(httpMethod, request.method);
    exchange.hops = this.hopsTo(exchange, url);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = AbortSignal.any([timeout, this.options.budget, ...(init.signal ? [init.signal] : [])]);
    const why = (e: unknown): WireErrorKind => (timeout.aborted ? 'timeout' : this.options.budget.aborted ? 'budget' : networkErrorKind(e));
    const response = await this.sent(exchange, url, { ...init, signal }, timeout, why);
    readHeaders(exchange, response, url);
    // A TLS wall may answer in HTTP too (nginx's 400 "No required SSL certificate was sent"): whether the canary presented one.
    if (new URL(url).protocol === 'https:') exchange.clientCertificateSent = Boolean(this.options.reach?.tls?.cert);
    if (request.id !== undefined && response.status === 202) {
      // 202 Accepted is the answer to a notification; a request needs its response. The SDK would
      // take it as "nothing to read" and wait for its timeout.
      await response.body?.cancel().catch(() => {});
      const code = 'HTTP 202 Accepted to a request: 202 answers notifications; a request needs its response';
      exchange.error = { kind: 'wrong_answer', code };
      throw new CanaryError(CanaryErrorCode.answerRefused, code, { kind: 'wrong_answer' });
    }
    if (!response.body) return response;
    // SEP-1699 resumption belongs to the 2025-11-25 era's sessions; a 2026-07-28 answer stream (and the
    // discover probe) is the request's only channel: ended without the answer, it is no answer.
    const version = headers.get('mcp-protocol-version') ?? '';
    const resumable = request.method !== 'server/discover' && !/^2026-/.test(version);
    const mode = bodyMode(response.status, request.id, exchange.contentType);
    const body = inspectBody(response.body, { exchange, mode, id: request.id, maxBytes: this.maxBytes, signal, why, resumable });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /**
   * The redirect chain that led to this request: the one before it carried the same JSON-RPC request and
   * was a 3xx whose Location is this URL (the SDK follows a same-origin 307/308 by sending it again).
   */
  private hopsTo(exchange: Exchange, url: string | URL): readonly string[] {
    const here = shownUrl(String(url));
    const before = this.exchanges.at(-2);
    const redirected =
      before &&
      before !== exchange &&
      before.rpcMethod === exchange.rpcMethod &&
      before.httpMethod === exchange.httpMethod &&
      before.status !== null &&
      before.status >= 300 &&
      before.status < 400 &&
      before.location === here;
    return redirected ? [...(before.hops ?? []), here] : [here];
  }

  /** A new exchange in the record, before the request goes out. */
  private record(httpMethod: string, rpcMethod: string | null): Exchange {
    const exchange = newExchange(httpMethod, rpcMethod);
    this.exchanges.push(exchange);
    return exchange;
  }

  /** The request on the wire's pool; a failure below HTTP (socket, TLS, timeout) is recorded, then thrown on. */
  private async sent(exchange: Exchange, url: string | URL, init: RequestInit, timeout: AbortSignal, why: (e: unknown) => WireErrorKind) {
    const alertsBefore = this.connections.tlsAlerts.length;
    const connectionsBefore = this.connections.tlsConnections.length;
    try {
      return await this.send(url, init);
    } catch (e) {
      // A TLS alert the socket saw names the failure better than the close that followed it.
      const alert = this.connections.tlsAlerts.slice(alertsBefore).at(-1);
      const cut = timeout.aborted || this.options.budget.aborted;
      exchange.error = alert && !cut ? { kind: 'tls', code: alert } : { kind: why(e), code: errorCode(e) };
      const answeredOtherwise = cut ? null : notHttp(e);
      if (answeredOtherwise) exchange.error = { kind: 'not_http', code: answeredOtherwise };
      // No alert, but the server asked for a client certificate and then cut the connection before any
      // answer (Node's own TLS 1.3 server, many Go and Java ones): the certificate, not the network.
      if (!cut && RESET.test(exchange.error.code) && this.connections.resetAfterCertificateRequest(connectionsBefore)) {
        exchange.error = { kind: 'tls', code: exchange.error.code };
        exchange.tlsWall = 'reset_after_certificate_request';
      }
      // The proxy the request went through (none on a fetch the wire was given); `proxyUrl` while the
      // request was not cut, when its failure may be the proxy's words.
      const proxy = this.options.fetch ? null : proxyUrlOf(this.options.reach?.proxy);
      const proxyUrl = cut ? null : proxy;
      const target = new URL(url);
      // A reset before any TLS connection completed (TLS 1.2 servers that verify the client's certificate
      // and reset rather than alert): one watched handshake tells whether the server had asked for one.
      const https = target.protocol === 'https:';
      if (!cut && !proxyUrl && https && RESET.test(exchange.error.code) && this.connections.tlsConnections.length === connectionsBefore) {
        const wall = await diagnoseHandshakeReset(target, this.options.timeoutMs, this.options.budget, tlsOptions(this.options.reach?.tls));
        if (wall) exchange.error = { kind: 'tls', code: exchange.error.code };
        if (wall) exchange.tlsWall = wall;
      }
      // An http:// URL whose server closed on the plain request without a byte of an answer (Node's https
      // server drops it; others send an alert, read above as not HTTP): one direct handshake tells whether
      // the port speaks TLS. Never through a proxy: the handshake would not reach the endpoint.
      const plain = target.protocol === 'http:';
      if (!cut && !proxyUrl && plain && exchange.error.kind === 'unreachable' && RESET.test(exchange.error.code)) {
        if (await speaksTls(target, this.options.timeoutMs, this.options.budget)) {
          const code = `the server closed the connection on a plain-HTTP request (${exchange.error.code}), and the same port answers a TLS handshake — a TLS server: the URL should be https://`;
          exchange.error = { kind: 'not_http', code };
        }
      }
      const proxied = proxyUrl && exchange.error.kind !== 'tls' ? proxyFailure(e, proxyUrl) : null;
      if (proxied) exchange.error = { kind: 'proxy', code: proxied.words };
      // The request timeout (the wire's, or the SDK's own, which aborts its signal at the same bound) ended a
      // request still waiting for the proxy to answer CONNECT: the proxy's silence, not the endpoint's (which
      // was never reached). The run's budget running out stays the budget's.
      const ended = init.signal?.aborted && !this.options.budget.aborted;
      // Thrown renamed, so that a caller reading the error (login's words) names the proxy too.
      if (ended && proxy && this.connections.tunnelPending()) {
        const silent = tunnelSilent(e, this.options.timeoutMs);
        exchange.error = { kind: 'proxy', code: proxyFailure(silent, proxy)!.words };
        throw silent;
      }
      if (exchange.error.kind === 'tls') exchange.clientCertificateSent = Boolean(this.options.reach?.tls?.cert);
      // The watched second handshake goes direct: through a proxy it would not reach the endpoint.
      if (exchange.error.kind === 'tls' && !proxyUrl && isHandshakeFailure(exchange.error.code) && https) {
        exchange.tlsWall = await diagnoseHandshakeFailure(target, this.options.timeoutMs, this.options.budget);
      }
      throw e;
    }
  }
}

/** What the answer's headers say, into the record: status, type, challenge, Retry-After, where a redirect points. */
function readHeaders(exchange: Exchange, response: Response, url: string | URL): void {
  exchange.status = response.status;
  exchange.contentType = response.headers.get('content-type');
  exchange.wwwAuthenticate = response.headers.get('www-authenticate');
  exchange.retryAfter = response.headers.get('retry-after');
  exchange.redirectTo = originOf(response.headers.get('location'), url);
  exchange.location = locationOf(response.headers.get('location'), url);
  if (exchange.redirectTo) exchange.redirectSameOrigin = exchange.redirectTo === originOf(String(url), url);
  const declared = Number(response.headers.get('content-length'));
  exchange.declaredLength = Number.isFinite(declared) && response.headers.has('content-length') ? declared : null;
}

/**
 * A request's answer is checked as JSON or as an event stream; anything else (a login page served with
 * 200) is read for its words, which the detail then shows beside the SDK's complaint.
 */
function bodyMode(status: number, id: RequestId | undefined, contentType: string | null): BodyMode {
  if (status < 200 || status >= 300) return 'words';
  if (id === undefined) return 'pass';
  const type = mediaType(contentType);
  return type === 'text/event-stream' ? 'sse' : type === 'application/json' ? 'json' : 'words';
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

function locationOf(location: string | null, base: string | URL): string | null {
  if (!location) return null;
  try {
    return shownUrl(new URL(location, base).href);
  } catch {
    return 'an unparsable Location';
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
