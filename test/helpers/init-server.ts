/**
 * A real SDK MCP server (2026-07-28, or sessionful 2025-11-25) for `mcp-canary init`: tools with their
 * own input schemas and annotations, resources and prompts, an optional credential it requires, and a
 * server-side record of every tool it ran — so a test asserts on what was called, not on what the
 * client says it called.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  type CallToolResult,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';

export interface InitTool {
  readonly name: string;
  readonly inputSchema: z.ZodObject;
  readonly outputSchema?: z.ZodObject;
  readonly annotations?: ToolAnnotations;
  readonly answer: (args: Record<string, unknown>) => CallToolResult;
}

export interface InitServerOptions {
  readonly era: 'modern' | 'legacy';
  readonly tools: readonly InitTool[];
  readonly resources?: ReadonlyArray<{ readonly name: string; readonly uri: string; readonly text: string }>;
  readonly prompts?: ReadonlyArray<{ readonly name: string; readonly argsSchema?: z.ZodObject }>;
  /** Requests without exactly this `Authorization` value get 401. */
  readonly authorization?: string;
}

export interface InitServer {
  readonly url: string;
  /** Each tool the server ran, by name, with its arguments, in order. */
  readonly calls: Array<{ readonly name: string; readonly args: Record<string, unknown> }>;
  /** Every JSON-RPC method received. */
  readonly methods: string[];
  close(): Promise<void>;
}

export async function startInitServer(opts: InitServerOptions): Promise<InitServer> {
  const calls: InitServer['calls'] = [];
  const methods: string[] = [];
  const factory = () => {
    const server = new McpServer({ name: 'init-test', version: '2.0.0' });
    for (const t of opts.tools) {
      server.registerTool(
        t.name,
        {
          description: `${t.name} (test tool)`,
          inputSchema: t.inputSchema,
          ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
          ...(t.annotations ? { annotations: t.annotations } : {}),
        },
        async (args: Record<string, unknown>) => {
          calls.push({ name: t.name, args });
          return t.answer(args) as never;
        },
      );
    }
    for (const r of opts.resources ?? []) {
      server.registerResource(r.name, r.uri, { mimeType: 'text/plain' }, async (uri: URL) => ({
        contents: [{ uri: uri.href, text: r.text }],
      }));
    }
    for (const p of opts.prompts ?? []) {
      server.registerPrompt(
        p.name,
        { description: `${p.name} (test prompt)`, ...(p.argsSchema ? { argsSchema: p.argsSchema } : {}) },
        () => ({
          messages: [{ role: 'user' as const, content: { type: 'text' as const, text: p.name } }],
        }),
      );
    }
    return server;
  };
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
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
  const handle = async (request: Request): Promise<Response> => {
    if (request.method === 'POST') {
      try {
        const msg = JSON.parse(await request.clone().text()) as { method?: unknown };
        if (typeof msg.method === 'string') methods.push(msg.method);
      } catch {
        // Not JSON: the transport answers it.
      }
    }
    if (opts.authorization !== undefined && request.headers.get('authorization') !== opts.authorization)
      return Response.json({ error: 'invalid_token' }, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    return opts.era === 'modern' ? modern.fetch(request) : legacy(request);
  };
  const server: Server = createServer(toNodeHandler({ fetch: handle } as never) as never);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    methods,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
