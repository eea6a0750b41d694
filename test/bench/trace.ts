/**
 * A recording HTTP proxy in front of an MCP server: what the canary (or any client) sent, on which
 * connection, and when each request started and ended as the server side saw it. This is how the
 * bench counts round trips without touching the engine.
 */
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TimedRequest } from './critical-path.ts';

export interface TracedRequest extends TimedRequest {
  readonly connection: number;
  readonly httpMethod: string;
  readonly rpcMethod: string | null;
  readonly status: number | null;
}

export interface Tracer {
  /** The proxy's URL: use it instead of the server's. */
  readonly url: string;
  /** The requests and connections since the last `take()`, and forget them. */
  take(): { requests: TracedRequest[]; connections: number };
  close(): Promise<void>;
}

export interface TracerOptions {
  /**
   * Emulated network round trip, ms: each request waits one before it is forwarded, and the first on a
   * new connection two more (TCP and TLS 1.3 handshakes). @default - 0, loopback as it is
   */
  readonly rttMs?: number;
}

export async function startTracer(upstreamUrl: string, options: TracerOptions = {}): Promise<Tracer> {
  const rttMs = options.rttMs ?? 0;
  const upstream = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true });
  let requests: TracedRequest[] = [];
  let connections = 0;
  const connectionIds = new WeakMap<Socket, { id: number; used: boolean }>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const startMs = performance.now();
    const conn = connectionIds.get(req.socket)!;
    const openedConnection = !conn.used;
    conn.used = true;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (rttMs > 0) await new Promise((resolve) => setTimeout(resolve, rttMs * (openedConnection ? 3 : 1)));
      const body = Buffer.concat(chunks);
      const rpcMethod = rpcMethodOf(body);
      let status: number | null = null;
      let recorded = false;
      const record = () => {
        if (recorded) return;
        recorded = true;
        const httpMethod = req.method ?? 'GET';
        requests.push({
          label: rpcMethod ?? httpMethod,
          startMs,
          endMs: performance.now(),
          openedConnection,
          connection: conn.id,
          httpMethod,
          rpcMethod,
          status,
        });
      };
      const up = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent },
        (ur) => {
          status = ur.statusCode ?? null;
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        },
      );
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      // A client that drops a stream (the 2025 GET stream at the end of a run) ends the request too.
      res.on('finish', record);
      res.on('close', () => {
        record();
        up.destroy();
      });
      up.end(body);
    });
  });
  server.on('connection', (s: Socket) => connectionIds.set(s, { id: ++connections, used: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}${upstream.search}`,
    take: () => {
      const taken = { requests: [...requests].sort((a, b) => a.startMs - b.startMs), connections };
      requests = [];
      connections = 0;
      return taken;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

function rpcMethodOf(body: Buffer): string | null {
  if (body.length === 0) return null;
  try {
    const msg = JSON.parse(body.toString('utf8')) as { method?: unknown };
    return typeof msg.method === 'string' ? msg.method : null;
  } catch {
    return null;
  }
}
