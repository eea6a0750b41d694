/**
 * A real SDK MCP server (2026-07-28 or sessionful 2025-11-25) whose tool list the test changes between
 * runs, with the security switches the posture checks look at — each the SDK's own middleware where it
 * has one (Origin validation, the Bearer challenge, the RFC 9728 document) — and a record of each
 * request's traceparent, `_meta` traceparent and User-Agent.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  bearerAuthChallengeResponse,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  localhostAllowedOrigins,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
  type CallToolResult,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface ToolDef {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodObject;
  readonly outputSchema?: z.ZodObject;
  readonly annotations?: ToolAnnotations;
  /** The tool's answer (slow, `isError`). @default - at once: `ok`, and `{ ok: true }` with an outputSchema */
  readonly answer?: () => Promise<CallToolResult>;
}

export interface Seen {
  readonly method: string;
  readonly rpcMethod: string | null;
  readonly traceparent: string | null;
  readonly metaTraceparent: string | null;
  readonly userAgent: string | null;
}

export interface CatalogPostureServerOptions {
  readonly era: 'modern' | 'legacy';
  readonly tools: readonly ToolDef[];
  /** Refuse foreign Origins with 403 (the SDK's originValidationResponse). @default false: any Origin */
  readonly validateOrigin?: boolean;
  /** Require `Authorization: Bearer <token>`; 401 with the SDK's challenge otherwise. */
  readonly bearerToken?: string;
  /** With bearerToken: name the RFC 9728 document in the challenge and serve it. @default true */
  readonly resourceMetadata?: boolean;
  /** Send Strict-Transport-Security. */
  readonly hsts?: boolean;
  /** Serve https with this key and certificate. */
  readonly tls?: { key: string; cert: string };
  /** Answer GET and DELETE on 2026-07-28 with 200 and a session id (a broken, stateful "modern" server). */
  readonly statefulModern?: boolean;
}

export interface CatalogPostureServer {
  readonly url: string;
  readonly seen: Seen[];
  setTools(tools: readonly ToolDef[]): void;
  close(): Promise<void>;
}

export async function startCatalogPostureServer(opts: CatalogPostureServerOptions): Promise<CatalogPostureServer> {
  let tools = opts.tools;
  const seen: Seen[] = [];
  const factory = () => {
    const server = new McpServer({ name: 'catalog', version: '1.0.0' });
    for (const t of tools) {
      server.registerTool(
        t.name,
        {
          description: t.description,
          inputSchema: t.inputSchema,
          ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
          ...(t.annotations ? { annotations: t.annotations } : {}),
        },
        async () =>
          t.answer
            ? t.answer()
            : { content: [{ type: 'text' as const, text: 'ok' }], ...(t.outputSchema ? { structuredContent: { ok: true } } : {}) },
      );
    }
    return server;
  };
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let base = '';

  const legacy = async (request: Request): Promise<Response> => {
    const sid = request.headers.get('mcp-session-id');
    const known = sid ? sessions.get(sid) : undefined;
    if (known) return known.handleRequest(request);
    if (sid) return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id: string) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id: string) => {
        sessions.delete(id);
      },
    });
    await factory().connect(transport);
    return transport.handleRequest(request);
  };

  const authMeta = () => ({
    oauthMetadata: {
      issuer: 'http://127.0.0.1:1/',
      authorization_endpoint: 'http://127.0.0.1:1/authorize',
      token_endpoint: 'http://127.0.0.1:1/token',
      response_types_supported: ['code'],
    },
    resourceServerUrl: new URL(`${base}/mcp`),
    dangerouslyAllowInsecureIssuerUrl: true,
  });

  const handle = async (request: Request): Promise<Response> => {
    const body = request.method === 'POST' ? await request.clone().text() : '';
    let msg: { method?: unknown; params?: { _meta?: Record<string, unknown> } } | undefined;
    try {
      msg = body ? JSON.parse(body) : undefined;
    } catch {
      msg = undefined;
    }
    seen.push({
      method: request.method,
      rpcMethod: typeof msg?.method === 'string' ? msg.method : null,
      traceparent: request.headers.get('traceparent'),
      metaTraceparent: typeof msg?.params?._meta?.traceparent === 'string' ? msg.params._meta.traceparent : null,
      userAgent: request.headers.get('user-agent'),
    });
    if (opts.validateOrigin) {
      const refused = originValidationResponse(request, localhostAllowedOrigins());
      if (refused) return refused;
    }
    if (opts.bearerToken !== undefined) {
      const withMeta = opts.resourceMetadata !== false;
      if (withMeta) {
        const doc = oauthMetadataResponse(request, authMeta() as never);
        if (doc) return doc;
      }
      if (request.headers.get('authorization') !== `Bearer ${opts.bearerToken}`) {
        const resourceMetadataUrl = withMeta ? getOAuthProtectedResourceMetadataUrl(new URL(`${base}/mcp`)) : undefined;
        return bearerAuthChallengeResponse(
          new OAuthError(OAuthErrorCode.InvalidToken, 'missing or wrong token'),
          resourceMetadataUrl ? { resourceMetadataUrl } : {},
        );
      }
    }
    if (opts.era === 'modern' && opts.statefulModern && (request.method === 'GET' || request.method === 'DELETE')) {
      return new Response('', { status: 200, headers: { 'mcp-session-id': randomUUID() } });
    }
    return opts.era === 'modern' ? modern.fetch(request) : legacy(request);
  };

  const node = toNodeHandler({
    fetch: async (request: Request) => {
      const response = await handle(request);
      if (!opts.hsts) return response;
      const headers = new Headers(response.headers);
      headers.set('strict-transport-security', 'max-age=31536000; includeSubDomains');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
  } as never);
  const server: Server = opts.tls ? createHttpsServer({ ...opts.tls }, node as never) : createServer(node as never);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    seen,
    setTools: (next) => {
      tools = next;
    },
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
