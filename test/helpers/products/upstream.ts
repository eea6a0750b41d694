/**
 * The product's upstream API, played on loopback: a real HTTP server whose answers a product module
 * writes in the API's own shapes, in one of three states. `healthy` answers the key the product
 * holds; `revoked` answers that key the way the API answers a revoked one (its 401 and its words);
 * `dead` closes the port, so the product's next request is refused (ECONNREFUSED), as when the API is
 * down or unreachable. Every request is recorded, so a test can tell the product really called it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type UpstreamState = 'healthy' | 'revoked' | 'dead';

export interface UpstreamRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface UpstreamAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON. */
  readonly body: unknown;
}

/** How the API answers one request in a live state. */
export type UpstreamApi = (req: UpstreamRequest, state: 'healthy' | 'revoked') => UpstreamAnswer;

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  /** The credential-carrying header the product sent, and whether it carried the key. */
  readonly carriedKey: boolean;
}

export interface Upstream {
  readonly url: string;
  /** Requests since the last `setState`. */
  readonly seen: readonly SeenRequest[];
  setState(state: UpstreamState): Promise<void>;
  close(): Promise<void>;
}

export async function startUpstream(api: UpstreamApi, key: string): Promise<Upstream> {
  let state: UpstreamState = 'healthy';
  let seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://upstream.invalid');
      const request: UpstreamRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push({ method: request.method, path: request.path, carriedKey: carriesKey(req.headers, key) });
      const answer = api(request, state === 'dead' ? 'healthy' : state);
      const json = typeof answer.body !== 'string';
      res.writeHead(answer.status, { 'content-type': json ? 'application/json; charset=utf-8' : 'text/html', ...answer.headers });
      res.end(json ? JSON.stringify(answer.body) : answer.body);
    });
  });
  await listen(server, 0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get seen() {
      return seen;
    },
    async setState(next) {
      seen = [];
      if (next === 'dead' && state !== 'dead') await shut(server);
      // Back on the same port: the product keeps the URL it was started with.
      if (next !== 'dead' && state === 'dead') await listen(server, port);
      state = next;
    },
    close: () => (server.listening ? shut(server) : Promise.resolve()),
  };
}

/** The key in any header, raw, as `Bearer <key>`, or inside HTTP Basic credentials. */
export function carriesKey(headers: IncomingHttpHeaders, key: string): boolean {
  return Object.values(headers).some((v) => {
    const value = Array.isArray(v) ? v.join(',') : (v ?? '');
    const basic = /^Basic\s+(\S+)/i.exec(value);
    return value.includes(key) || (basic !== null && Buffer.from(basic[1]!, 'base64').toString('utf8').includes(key));
  });
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Closes the port and every open connection (a keep-alive socket would otherwise still answer). */
function shut(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
