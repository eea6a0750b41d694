/**
 * Real MCP servers (the SDK's) in shapes the demo servers do not take: a 2026-07-28 tool whose handler
 * sees the request context (multi-round-trip state), and a 2025-11-25 server of exactly one session.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { closeServer, listen } from '../../../functions/demo/servers.ts';

export interface SdkServer {
  readonly url: string;
  /** The `requestState` of every tools/call, in order (undefined for a first round). */
  readonly states: (string | undefined)[];
  close(): Promise<void>;
}

type Handler = (ctx: { requestState: string | undefined }) => unknown;

/** A 2026-07-28 server with one read-only tool, `get_rate`, answered by `handler`. */
export async function startModernSdkServer(handler: Handler): Promise<SdkServer> {
  const states: (string | undefined)[] = [];
  const mcp = toNodeHandler(
    createMcpHandler(
      () => {
        const s = new McpServer({ name: 'rates-mrtr', version: '2.0.0' });
        s.registerTool(
          'get_rate',
          { description: 'rate', inputSchema: z.object({}).catchall(z.unknown()), annotations: { readOnlyHint: true } },
          async (_args: unknown, ctx: { mcpReq: { requestState: <T>() => T | undefined } }) => {
            const requestState = ctx.mcpReq.requestState<string>();
            states.push(requestState);
            return handler({ requestState }) as never;
          },
        );
        return s;
      },
      { legacy: 'reject' },
    ),
  );
  const server = createServer(async (req, res) => {
    const raw = await body(req);
    await mcp(req, res, raw ? JSON.parse(raw) : undefined);
  });
  return { url: await listen(server, '/mcp'), states, close: () => closeServer(server) };
}

/**
 * A 2025-11-25 server with one transport for everyone, as the seed's one-session backends run: the
 * first initialize gets the session, every later one `400 -32600 "Server already initialized"`.
 */
export async function startOneSessionServer(): Promise<{ url: string; close(): Promise<void> }> {
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => 'the-only-session' });
  const mcp = new McpServer({ name: 'one-session', version: '1.0.0' });
  mcp.registerTool(
    'get_rate',
    { description: 'rate', inputSchema: z.object({}).catchall(z.unknown()), annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: 'text' as const, text: 'EURUSD 1.08' }] }),
  );
  await mcp.connect(transport);
  const server = createServer(async (req, res) => {
    const raw = await body(req);
    await transport.handleRequest(req, res, raw ? JSON.parse(raw) : undefined);
  });
  const url = await listen(server, '/mcp');
  // Another client takes the only session first.
  const taken = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'first-client', version: '1' } },
    }),
  });
  await taken.text();
  return {
    url,
    close: async () => {
      await transport.close().catch(() => {});
      await closeServer(server);
    },
  };
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
