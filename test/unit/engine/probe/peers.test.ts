/**
 * Healthy judgments against an MCP server implementation other than the SDK v2 the demo uses: the v1
 * TypeScript SDK (@modelcontextprotocol/sdk 1.x, a separate code base that speaks 2025-11-25 only),
 * stateful with sessions and an event store (so its tool answers come as resumable SSE), and
 * stateless. The canary must call both healthy, on 2025-11-25, with no standalone GET stream and a
 * DELETE for the stateful session.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { target } from '../../../helpers/probe.ts';

interface Peer {
  url: string;
  methods: string[];
  close(): Promise<void>;
}

function v1Server(): McpServer {
  const server = new McpServer({ name: 'v1-peer', version: '1.32.2' });
  server.registerTool(
    'get_rate',
    {
      description: 'EUR/USD rate',
      inputSchema: { pair: z.string() },
      outputSchema: { rate: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ pair }) => ({ content: [{ type: 'text', text: `${pair} 1.08` }], structuredContent: { rate: 1.08 } }),
  );
  return server;
}

async function startPeer(stateful: boolean): Promise<Peer> {
  const methods: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body: unknown = raw ? JSON.parse(raw) : undefined;
    // The origin's Server Card (asked after the verdict) is not a request to the MCP endpoint.
    if (req.url?.startsWith('/.well-known/')) return void res.writeHead(404).end();
    methods.push(`${req.method} ${(body as { method?: string } | undefined)?.method ?? ''}`.trim());
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport(
        stateful
          ? {
              sessionIdGenerator: () => randomUUID(),
              eventStore: new InMemoryEventStore(),
              onsessioninitialized: (id) => {
                sessions.set(id, transport!);
              },
            }
          : { sessionIdGenerator: undefined },
      );
      await v1Server().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    methods,
    close: async () => {
      for (const t of sessions.values()) await t.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

let stateful: Peer;
let stateless: Peer;
beforeAll(async () => {
  [stateful, stateless] = await Promise.all([startPeer(true), startPeer(false)]);
});
afterAll(async () => {
  await Promise.all([stateful?.close(), stateless?.close()]);
});

describe('the v1 TypeScript SDK as a peer', () => {
  it.each(['auto', '2025-11-25'] as const)(
    'stateful with an event store, revision %s → healthy on 2025-11-25, no GET stream, one DELETE',
    async (revision) => {
      stateful.methods.length = 0;
      const v = await judge(
        target(stateful.url, { revision, tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } } }),
      );
      expect(v, v.detail).toMatchObject({ outcome: 'healthy', failure: null, revision: '2025-11-25', server: { name: 'v1-peer' } });
      expect(stateful.methods.filter((m) => m === 'GET')).toEqual([]);
      expect(stateful.methods.filter((m) => m === 'DELETE')).toHaveLength(1);
    },
  );

  it('stateless → healthy on 2025-11-25', async () => {
    const v = await judge(target(stateless.url, { tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectText: '1.08' } }));
    expect(v, v.detail).toMatchObject({ outcome: 'healthy', revision: '2025-11-25' });
  });

  it('pinned to 2026-07-28 → failed/revision (it speaks 2025-11-25 only), not http_status', async () => {
    const v = await judge(target(stateless.url, { revision: '2026-07-28' }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'revision' });
    expect(v.detail).toMatch(/does not speak the pinned 2026-07-28/);
  });
});
