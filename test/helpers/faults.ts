/**
 * Raw HTTP fault servers on 127.0.0.1: whatever a broken or hostile endpoint does, byte for byte,
 * without an MCP SDK in the way. Each records what it received.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from './tools.ts';

export interface Received {
  readonly method: string;
  readonly rpcMethod: string | null;
  readonly rpcId: unknown;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type FaultHandler = (req: IncomingMessage, res: ServerResponse, rx: Received) => void | Promise<void>;

export interface FaultServer {
  readonly url: string;
  /** The requests to the MCP endpoint (the Server Card's well-known path is recorded in `cards`). */
  readonly received: Received[];
  /** The requests for the origin's Server Card (SEP-2127), which every run that reaches the server sends. */
  readonly cards: Received[];
  close(): Promise<void>;
}

/** The origin's Server Card location (SEP-2127): a run that reached the server asks it after the verdict. */
const CARD_PATH = '/.well-known/mcp/server-card';

/**
 * `serverCard` answers the Server Card's well-known path; without it that path is a plain 404 (no card
 * advertised), kept apart from `received` so a row about the endpoint counts the endpoint's requests.
 */
export async function startFaultServer(
  handler: FaultHandler,
  opts: { tls?: { key: string; cert: string }; serverCard?: FaultHandler } = {},
): Promise<FaultServer> {
  const received: Received[] = [];
  const cards: Received[] = [];
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let msg: { method?: unknown; id?: unknown } | undefined;
    try {
      msg = body ? JSON.parse(body) : undefined;
    } catch {
      msg = undefined;
    }
    const rx: Received = {
      method: req.method ?? 'GET',
      rpcMethod: typeof msg?.method === 'string' ? msg.method : null,
      rpcId: msg?.id,
      headers: req.headers,
      body,
    };
    const card = (req.url ?? '').split('?')[0] === CARD_PATH;
    (card ? cards : received).push(rx);
    if (card && !opts.serverCard) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no server card');
    try {
      await (card ? opts.serverCard! : handler)(req, res, rx);
    } catch {
      res.destroy();
    }
  };
  const server: Server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, onRequest) : createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}/mcp`,
    received,
    cards,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** JSON-RPC answer helpers for hand-written endpoints. */
export function rpcResult(res: ServerResponse, id: unknown, result: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}
export function rpcError(res: ServerResponse, status: number, id: unknown, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

/** A self-signed certificate made with openssl, as a misconfigured TLS endpoint has. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const args = [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ];
    args.push('-days', '1');
    execFileSync(requireTool('openssl'), args, { stdio: 'ignore' });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A hand-written 2026-07-28 endpoint (discover, tools/list, tools/call) whose answers the test
 * controls entirely — for servers that lie in ways the SDK's own server would not let them.
 */
export function modernEndpoint(opts: {
  tools: unknown[];
  call?: (params: { name: string; arguments?: unknown }) => unknown;
  onOther?: FaultHandler;
}): FaultHandler {
  return (req, res, rx) => {
    switch (rx.rpcMethod) {
      case 'server/discover':
        return rpcResult(res, rx.rpcId, {
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hand-written', version: '0.0.1' } },
        });
      case 'tools/list':
        return rpcResult(res, rx.rpcId, { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: opts.tools });
      case 'tools/call':
        return rpcResult(res, rx.rpcId, {
          resultType: 'complete',
          ...((opts.call?.((JSON.parse(rx.body) as { params: { name: string } }).params) ?? { content: [] }) as object),
        });
      default:
        if (opts.onOther) return opts.onOther(req, res, rx);
        res.writeHead(400).end();
    }
  };
}

export const readOnlyRateTool = {
  name: 'get_rate',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { rate: { type: 'number' } }, required: ['rate'] },
  annotations: { readOnlyHint: true },
};
