/**
 * Real MCP servers of both eras, in-process on 127.0.0.1: the demo's endpoints and the tests'.
 * Built on the SDK's server packages (dev dependencies), with a few switches for the faults a canary
 * must see (forgotten sessions, auth walls, a discover that answers 500) and a record of every request.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, McpServer, type ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { SERVER_CARD_PATH } from '../base/common/well-known.ts';

export type Era = 'modern' | 'legacy' | 'dual';

export interface ToolSpec {
  readonly name: string;
  readonly annotations?: ToolAnnotations;
  readonly outputSchema?: z.ZodObject;
  readonly handler: (args: Record<string, unknown>, req: { authorization: string | undefined }) => Promise<ToolAnswer> | ToolAnswer;
}
export interface ToolAnswer {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A resource the server offers: a fixed URI and its text. */
export interface ResourceSpec {
  readonly uri: string;
  readonly name: string;
  readonly text: () => string;
}

/** A prompt the server offers: its argument names, and its one user message from them. */
export interface PromptSpec {
  readonly name: string;
  readonly args?: readonly string[];
  readonly text: (args: Record<string, string>) => string;
}

/**
 * Answers a request before the SDK's server sees it (a JSON-RPC answer object, sent as JSON), or
 * undefined to pass it on: how a test adds a method the SDK server does not serve (SEP-2663 tasks).
 */
export type Intercept = (rpcMethod: string, body: Record<string, unknown>) => Promise<unknown> | unknown;

export interface RecordedRequest {
  readonly httpMethod: string;
  readonly rpcMethod: string | null;
  readonly sessionId: string | null;
  readonly protocolVersion: string | null;
  readonly authorization: string | null;
}

export interface McpServerOptions {
  readonly era: Era;
  readonly name?: string;
  readonly version?: string;
  readonly tools: readonly ToolSpec[];
  /** Resources (the server then advertises the resources capability). @default none */
  readonly resources?: readonly ResourceSpec[];
  /** Prompts (the server then advertises the prompts capability). @default none */
  readonly prompts?: readonly PromptSpec[];
  /** Requests answered by the test before the SDK's server (see `Intercept`). */
  readonly intercept?: Intercept;
  /** 2025 sessions: kept (default), forgotten once right after the first initialize, or after every one. */
  readonly sessions?: 'keep' | 'forget-once' | 'forget-always';
  /** When set, requests without exactly this Authorization header get 401 with a Bearer challenge. */
  readonly requireAuthorization?: string;
  /** Answer every server/discover with this HTTP status (the "discover 500, 2025 fine" server). */
  readonly discoverStatus?: number;
  /** Listen on this port (default: any free one); a test restarts a server on the same port with it. */
  readonly port?: number;
  /** Answer the first `times` requests of `rpcMethod` with `status` (a blip, a lost session, a 503). */
  readonly inject?: { readonly rpcMethod: string; readonly status: number; readonly times: number };
  /** Serves the origin's Server Card (SEP-2127, `/.well-known/mcp/server-card`); without it that path is 404. Not recorded in `requests`. */
  readonly serverCard?: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

export interface RunningServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** JSON-RPC methods received, in order (notifications included). */
  methods(): string[];
  close(): Promise<void>;
}

export async function startMcpServer(opts: McpServerOptions): Promise<RunningServer> {
  const factory = () => buildServer(opts);
  const modern = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
  const legacy = new LegacySessions(factory, opts.sessions ?? 'keep');
  const requests: RecordedRequest[] = [];
  const injections = { left: opts.inject?.times ?? 0 };
  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url === '/health') return sendJson(res, 200, { status: 'ok' });
    if ((req.url ?? '').split('?')[0] === SERVER_CARD_PATH) {
      if (opts.serverCard) return await opts.serverCard(req, res);
      return sendJson(res, 404, { error: 'no server card' });
    }
    try {
      const body = await readJson(req);
      const rpcMethod = typeof (body as { method?: unknown })?.method === 'string' ? (body as { method: string }).method : null;
      requests.push({
        httpMethod: req.method ?? 'GET',
        rpcMethod,
        sessionId: header(req, 'mcp-session-id'),
        protocolVersion: header(req, 'mcp-protocol-version'),
        authorization: header(req, 'authorization'),
      });
      if (answeredAsTold(opts, injections, req, res, rpcMethod, body)) return;
      const own = rpcMethod && opts.intercept ? await opts.intercept(rpcMethod, body as Record<string, unknown>) : undefined;
      if (own !== undefined) return sendJson(res, 200, own);
      const era = opts.era === 'dual' ? ((await isLegacyRequest(await toWebRequest(req, body))) ? 'legacy' : 'modern') : opts.era;
      if (era === 'modern') return await modern(req, res, body);
      return await legacy.handle(req, res, body);
    } catch (e) {
      if (!res.headersSent) sendJson(res, 500, { error: String(e) });
      else res.end();
    }
  });
  const url = await listen(server, '/mcp', opts.port);
  return {
    url,
    requests,
    methods: () => requests.map((r) => r.rpcMethod).filter((m): m is string => m !== null),
    close: async () => {
      await legacy.close();
      await closeServer(server);
    },
  };
}

/** A POST's JSON body, or undefined (a GET, an empty or broken body). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = req.method === 'POST' ? await readBody(req) : '';
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

/** The failures the options ask for (an auth wall, an injected status, a failing discover); true when one answered. */
function answeredAsTold(
  opts: McpServerOptions,
  injections: { left: number },
  req: IncomingMessage,
  res: ServerResponse,
  rpcMethod: string | null,
  body: unknown,
): boolean {
  const id = (body as { id?: unknown } | undefined)?.id ?? null;
  if (opts.requireAuthorization !== undefined && header(req, 'authorization') !== opts.requireAuthorization) {
    res.setHeader('www-authenticate', 'Bearer error="invalid_token", error_description="The access token expired"');
    sendJson(res, 401, { error: 'invalid_token' });
    return true;
  }
  if (opts.inject && rpcMethod === opts.inject.rpcMethod && injections.left > 0) {
    injections.left--;
    const message = opts.inject.status === 404 ? 'Session not found' : 'Injected failure';
    sendJson(res, opts.inject.status, { jsonrpc: '2.0', error: { code: -32001, message }, id });
    return true;
  }
  if (opts.discoverStatus !== undefined && rpcMethod === 'server/discover') {
    sendJson(res, opts.discoverStatus, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id });
    return true;
  }
  return false;
}

/** 2025-11-25 sessions, one transport each; `forget` drops a new session at once (the next request with it gets 404). */
class LegacySessions {
  private readonly sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  private forgetsLeft: number;

  constructor(
    private readonly factory: () => McpServer,
    forget: 'keep' | 'forget-once' | 'forget-always',
  ) {
    this.forgetsLeft = forget === 'forget-always' ? Infinity : forget === 'forget-once' ? 1 : 0;
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sid = header(req, 'mcp-session-id');
    const known = sid ? this.sessions.get(sid) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (sid) return sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id: string) => {
        if (this.forgetsLeft > 0) this.forgetsLeft--;
        else this.sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await this.factory().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async close(): Promise<void> {
    for (const t of this.sessions.values()) await t.close().catch(() => {});
  }
}

function buildServer(opts: McpServerOptions): McpServer {
  const server = new McpServer({ name: opts.name ?? 'rates', version: opts.version ?? '1.4.2' });
  for (const t of opts.tools) {
    server.registerTool(
      t.name,
      {
        description: `${t.name} (test tool)`,
        inputSchema: z.object({}).catchall(z.unknown()),
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        ...(t.annotations ? { annotations: t.annotations } : {}),
      },
      async (args: Record<string, unknown>, ctx: { http?: { req?: { headers?: Headers } } }) => {
        const authorization = ctx?.http?.req?.headers?.get?.('authorization') ?? undefined;
        return t.handler(args, { authorization }) as never;
      },
    );
  }
  for (const r of opts.resources ?? []) {
    server.registerResource(r.name, r.uri, { mimeType: 'text/plain' }, async (uri: URL) => ({
      contents: [{ uri: uri.href, text: r.text() }],
    }));
  }
  for (const p of opts.prompts ?? []) {
    const argsSchema = z.object(Object.fromEntries((p.args ?? []).map((a) => [a, z.string()])));
    server.registerPrompt(p.name, { description: `${p.name} (test prompt)`, argsSchema }, (args: Record<string, string>) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: p.text(args) } }],
    }));
  }
  return server;
}

/** A tiny upstream API with a key, the kind a real MCP tool wraps. Revoke the key to break the tool only. */
export interface RatesApi {
  readonly url: string;
  readonly key: string;
  revokeKey(): void;
  close(): Promise<void>;
}

export async function startRatesApi(key = 'demo-upstream-key'): Promise<RatesApi> {
  let valid = true;
  const server = createServer((req, res) => {
    if (!valid || req.headers['x-api-key'] !== key) return sendJson(res, 401, { error: 'API key revoked or invalid' });
    const pair = new URL(req.url ?? '/', 'http://x').searchParams.get('pair') ?? 'EURUSD';
    sendJson(res, 200, { pair, rate: 1.08 });
  });
  const url = await listen(server, '');
  return {
    url,
    key,
    revokeKey: () => {
      valid = false;
    },
    close: () => closeServer(server),
  };
}

/** The demo's canary tool: read-only, cheap, and it calls the upstream API with its key. */
export function rateTool(api: { url: string; key: string }): ToolSpec {
  return {
    name: 'get_rate',
    annotations: { readOnlyHint: true, openWorldHint: true },
    outputSchema: z.object({ pair: z.string(), rate: z.number() }),
    handler: async (args) => {
      const pair = typeof args.pair === 'string' ? args.pair : 'EURUSD';
      const res = await fetch(`${api.url}/rate?pair=${encodeURIComponent(pair)}`, { headers: { 'x-api-key': api.key } });
      if (!res.ok)
        return {
          isError: true,
          content: [
            {
              type: 'text',
              text: `upstream rates API answered HTTP ${res.status}: ${((await res.json()) as { error?: string }).error ?? ''}`,
            },
          ],
        };
      const data = (await res.json()) as { pair: string; rate: number };
      return { content: [{ type: 'text', text: `${data.pair} ${data.rate}` }], structuredContent: data };
    },
  };
}

export function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function listen(server: Server, path: string, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
