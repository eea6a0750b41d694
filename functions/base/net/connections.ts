/**
 * Requests on a connection pool of their own whose sockets, a connect in progress included, all end at
 * `close()`: each attempt's wire uses one, and so does anything else that talks to the endpoint beside
 * a run (the posture checks).
 *
 * A pool per attempt: Node's fetch keeps sockets alive in one process-wide pool; a warm Lambda that
 * thaws holding a socket its server has since closed, or a server restarted between runs, would cost a
 * run a false `unreachable` (Toolhive's stale keep-alive bug), and sockets of a hung server would
 * outlive the run (dispatcher.ts makes the pool).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FetchLike, FetchMiddleware, Reach } from '../common/run-context.ts';
import { acceptInterimResponses } from './interim.ts';
import { refuseThroughProxy } from './proxy-words.ts';
import { openRoute, type Route } from './reach.ts';
import { serverAlert } from './tls-wall.ts';

/**
 * The sockets each pool's requests open, found through Node's `net.client.socket` channel (every TCP
 * connect, one still in progress included) and undici's `undici:client:connected` channel (TLS sockets
 * too, once connected), and the async context of the request that opened them. Destroying the pool does
 * not end a connect still in progress: a server that never completes the TCP handshake kept the process
 * alive ~10 s after the verdict. `close()` destroys what these requests opened, and nothing of a run
 * beside them. A connected socket is also where two things only the socket shows are seen: an
 * unsolicited `100 Continue` (interim.ts) and a TLS 1.3 alert that arrives after the handshake
 * (`certificate_required`).
 */
const socketOwner = new AsyncLocalStorage<Connections>();
let socketsTracked = false;
function trackSockets(): void {
  if (socketsTracked) return;
  socketsTracked = true;
  subscribe('net.client.socket', (m) => socketOwner.getStore()?.adopt((m as { socket: Socket }).socket));
  subscribe('undici:client:connected', (m) => socketOwner.getStore()?.connected((m as { socket: Socket }).socket));
}

export class Connections {
  private pool: Promise<Route> | undefined;
  private opened: Route | undefined;
  private readonly sockets = new Set<Socket>();
  /** Hosts already judged for a request through the proxy (proxy-words.ts). */
  private readonly judged = new Map<string, Promise<void>>();
  /** TLS alerts the server sent on connected sockets, in order (the socket error undici reports is often only "other side closed"). */
  readonly tlsAlerts: string[] = [];
  /** The TLS connections these requests opened, in order: whether the server asked for a client certificate, and whether it answered. */
  readonly tlsConnections: TlsConnection[] = [];
  private readonly tlsRecords = new WeakMap<Socket, TlsConnection>();

  /**
   * `injected`: a fetch given by a test (a custom CA), which may not be Node's: its requests get no pool
   * of ours, only the socket tracking. `reach`: the target's client certificate, private CAs and proxy.
   */
  constructor(
    private readonly connectTimeoutMs: number,
    private readonly injected?: FetchLike,
    private readonly reach?: Reach,
  ) {
    trackSockets();
  }

  /** A fetch whose every request goes out on this pool, `middleware` around the base fetch. */
  fetch(middleware?: FetchMiddleware): FetchLike {
    // Node's fetch, or undici's beside its proxy agent (reach.ts): known once the pool is open.
    const base: FetchLike = this.injected ?? (async (url, init) => (await this.route()).fetch(url, init));
    const wrapped = middleware ? middleware(base) : base;
    return (url, init) => this.send(wrapped, url, init ?? {});
  }

  /** Whether a CONNECT to the proxy is still unanswered: a request cut by its timeout then waited on the proxy. */
  tunnelPending(): boolean {
    return (this.opened?.tunnelsPending() ?? 0) > 0;
  }

  private route(): Promise<Route> {
    // The connect timeout is the request timeout: a server that never completes the TCP handshake would
    // otherwise keep a connect pending (undici's default is 10 s) and the process alive after the verdict.
    return (this.pool ??= openRoute(this.connectTimeoutMs, this.reach).then((r) => (this.opened = r)));
  }

  /** `base` (the injected or Node's fetch, maybe wrapped) sent on this pool. */
  async send(base: FetchLike, url: string | URL, init: RequestInit): Promise<Response> {
    const route = this.injected ? undefined : await this.route();
    // Through a proxy the proxy resolves the host, so the final destination is judged here first.
    if (route?.proxy) {
      const u = new URL(url);
      // Once per host per pool: a network behind a proxy may resolve outside names slowly, or not at all.
      await (this.judged.get(u.host) ?? this.judged.set(u.host, refuseThroughProxy(u)).get(u.host));
    }
    const dispatcher = route?.dispatcherFor(new URL(url));
    // Node's fetch frees a socket only a tick after its response body ended, and the SDK sends the next
    // request at once: without one turn of the event loop each run opened a second connection (a second
    // TCP and TLS handshake on the run's critical path, npm run bench).
    if (dispatcher) await new Promise((resolve) => setImmediate(resolve));
    return socketOwner.run(this, () => base(url, { ...init, ...(dispatcher ? { dispatcher } : {}) } as RequestInit));
  }

  adopt(socket: Socket): void {
    this.sockets.add(socket);
    if ('encrypted' in socket) {
      // TLS 1.2: a server that refuses the client's certificate by resetting (Node's own, many others) does
      // it before the handshake completes, so `connected` never sees the socket. The key exchange (keylog)
      // comes after the server's CertificateRequest: whether it asked is known there.
      const record = this.tlsRecord(socket as TLSSocket);
      socket.on('keylog', () => {
        if (((socket as TLSSocket).getSharedSigalgs?.() ?? []).length > 0) record.certificateRequested = true;
      });
    }
  }

  /** One record per TLS socket, whether it is first seen connecting (adopt) or connected. */
  private tlsRecord(socket: TLSSocket): TlsConnection {
    let record = this.tlsRecords.get(socket);
    if (!record) {
      record = watchTls(socket);
      this.tlsRecords.set(socket, record);
      this.tlsConnections.push(record);
    }
    return record;
  }

  /** A socket undici connected for these requests, before its first request is written. */
  connected(socket: Socket): void {
    this.sockets.add(socket);
    acceptInterimResponses(socket);
    if ('encrypted' in socket) {
      socket.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code && serverAlert(e.code)) this.tlsAlerts.push(e.code);
      });
      const record = this.tlsRecord(socket as TLSSocket);
      if (((socket as TLSSocket).getSharedSigalgs?.() ?? []).length > 0) record.certificateRequested = true;
    }
  }

  /**
   * A TLS connection opened since the `since`-th that asked for a client certificate and then ended
   * without a byte of an answer: what a server that resets instead of sending an alert leaves.
   */
  resetAfterCertificateRequest(since: number): boolean {
    return this.tlsConnections.slice(since).some((c) => c.certificateRequested && !c.answered);
  }

  /** Closes every socket these requests opened, a connect still in progress included. */
  async close(): Promise<void> {
    const pool = await this.pool;
    await pool?.destroy().catch(() => {});
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}

/** One TLS connection, as far as a reset with no alert needs it. */
export interface TlsConnection {
  /** The server sent a CertificateRequest in the handshake. */
  certificateRequested: boolean;
  /** Any byte of an HTTP answer was read from it. */
  answered: boolean;
}

/**
 * Whether the server asked for a client certificate, read once the handshake is done: OpenSSL fills a
 * client's shared signature algorithms only from the server's CertificateRequest (TLS 1.2 and 1.3), and
 * Node shows no other trace of it. Hand-written: no library says whether a server asked. Wraps the
 * socket's read (as interim.ts does) to see whether any answer came before the connection ended.
 */
function watchTls(socket: TLSSocket): TlsConnection {
  const record: TlsConnection = { certificateRequested: (socket.getSharedSigalgs?.() ?? []).length > 0, answered: false };
  const read = socket.read.bind(socket);
  socket.read = ((size?: number) => {
    const chunk = read(size) as unknown;
    if (chunk !== null) record.answered = true;
    return chunk;
  }) as TLSSocket['read'];
  return record;
}
