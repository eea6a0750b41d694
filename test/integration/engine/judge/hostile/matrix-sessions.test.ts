/**
 * The hostile-endpoint matrix (sessions, eras and the spec's client obligations): what a broken or hostile
 * endpoint does → the verdict the canary must reach → the bound it must hold. Real sockets on 127.0.0.1.
 * The same rows are the table in test/integration/engine/judge/hostile/README.md; a row added here belongs there
 * too. The matrix is split by concern over matrix-*.test.ts.
 *
 * The bounds are hang protection, not speed: a row's limit is its request timeout or run budget plus 10 %,
 * generous enough that a slow machine never trips it, tight enough that a hang always does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi } from '../../../../../functions/demo/servers.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer, type FaultHandler } from '../../../../helpers/faults.ts';
import { target } from '../../../../helpers/probe.ts';
import { BUDGET_MS, expectVerdict, judgeFault, legacyEndpoint, TIMEOUT_MS, judgeTimed } from '../../../../helpers/hostile/harness.ts';

let api: RatesApi;
beforeAll(async () => {
  api = await startRatesApi();
});
afterAll(async () => {
  await api.close();
});

describe('sessions and eras', () => {
  it('a 2025 server that forgets the session after initialize, always → failed/session_lost', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], sessions: 'forget-always' });
    try {
      const v = await judgeTimed(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
      expectVerdict(v, 'failed', 'session_lost');
    } finally {
      await server.close();
    }
  });

  it('a 2025 server that forgets the session once → degraded, naming the likely cause', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], sessions: 'forget-once' });
    try {
      const v = await judgeTimed(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
      expectVerdict(v, 'degraded', null, /replicas without shared session/);
    } finally {
      await server.close();
    }
  });

  it('a round-robin pair of 2025 replicas without shared sessions → failed/session_lost', async () => {
    const a = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    const b = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    let turn = 0;
    const lb = await startFaultServer(async (req, res, rx) => {
      const upstream = turn++ % 2 === 0 ? a.url : b.url;
      const headers: Record<string, string> = {};
      for (const [k, val] of Object.entries(req.headers))
        if (typeof val === 'string' && k !== 'host' && k !== 'content-length') headers[k] = val;
      const r = await fetch(upstream, { method: rx.method, headers, ...(rx.body ? { body: rx.body } : {}) });
      res.writeHead(r.status, Object.fromEntries(r.headers));
      res.end(Buffer.from(await r.arrayBuffer()));
    });
    try {
      const v = await judgeTimed(target(lb.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, revision: '2025-11-25' }));
      expectVerdict(v, 'failed', 'session_lost', /replicas without shared sessions/);
    } finally {
      await lb.close();
      await a.close();
      await b.close();
    }
  });

  it('an era that flips mid-run (discover as 2026, then an uninitialized 2025 server) → failed/revision with both answers, every run, never an initialize', async () => {
    const handler = modernEndpoint({ tools: [readOnlyRateTool] });
    const flipping: FaultHandler = (req, res, rx) => {
      if (rx.rpcMethod === 'server/discover') return handler(req, res, rx);
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }));
    };
    const server = await startFaultServer(flipping);
    try {
      const verdicts = [];
      for (let i = 0; i < 3; i++) verdicts.push(await judgeTimed(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS })));
      for (const v of verdicts)
        expectVerdict(
          v,
          'failed',
          'revision',
          /tools\/list: .*HTTP 400: "Bad Request: Server not initialized".*discover offered 2026-07-28/,
        );
      expect(new Set(verdicts.map((v) => `${v.revision}/${v.failure}`))).toEqual(new Set(['2026-07-28/revision']));
      expect(server.received.map((r) => r.rpcMethod)).not.toContain('initialize');
    } finally {
      await server.close();
    }
  });

  it('a dual-era server → 2026-07-28 on every run', async () => {
    const server = await startMcpServer({ era: 'dual', tools: [rateTool(api)] });
    try {
      for (let i = 0; i < 3; i++) {
        const v = await judgeTimed(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
        expectVerdict(v, 'healthy', null);
        expect(v.revision).toBe('2026-07-28');
      }
    } finally {
      await server.close();
    }
  });

  it('a server restarted on the same port between runs → healthy (no stale keep-alive socket)', async () => {
    const first = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
    const url = first.url;
    expectVerdict(await judgeTimed(target(url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS })), 'healthy', null);
    await first.close();
    const port = Number(new URL(url).port);
    const second = await startMcpServer({ era: 'modern', tools: [rateTool(api)], port });
    try {
      expectVerdict(await judgeTimed(target(url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS })), 'healthy', null);
    } finally {
      await second.close();
    }
  });
});

describe("the spec's client obligations", () => {
  it.each(['2025-06-18', '2025-03-26'])('a 2025 server that negotiates %s → healthy, labelled exactly', async (protocolVersion) => {
    const { v } = await judgeFault(legacyEndpoint({ protocolVersion }), { tool: { name: 'get_rate' } });
    expectVerdict(v, 'healthy', null);
    expect(v.revision).toBe(protocolVersion);
  });

  it('pinned 2025-11-25 on a server that negotiates 2025-06-18 → failed/revision naming what it negotiated', async () => {
    const { v } = await judgeFault(legacyEndpoint({ protocolVersion: '2025-06-18' }), {
      revision: '2025-11-25',
      tool: { name: 'get_rate' },
    });
    expectVerdict(v, 'failed', 'revision', /negotiated 2025-06-18, not the pinned 2025-11-25/);
  });

  it('a server of resources only, no canary tool asked → healthy; with a tool asked → failed/tool_missing', async () => {
    const resourcesOnly = legacyEndpoint({ capabilities: { resources: {} } });
    expectVerdict(
      (await judgeFault(resourcesOnly, { tool: undefined })).v,
      'healthy',
      null,
      /advertises no tools capability \(capabilities: resources\)/,
    );
    expectVerdict((await judgeFault(resourcesOnly)).v, 'failed', 'tool_missing', /no get_rate/);
  });

  it('never opens the standalone GET stream on a 2025 session', async () => {
    const { v, received } = await judgeFault(legacyEndpoint({}), { tool: { name: 'get_rate' } });
    expectVerdict(v, 'healthy', null);
    expect(received).not.toContain('GET');
  });

  it('SEP-1699: a stream closed after an event id and retry is resumed with GET + Last-Event-ID → healthy', async () => {
    let pending: unknown;
    let lastEventId: string | undefined;
    const { v, received } = await judgeFault(
      legacyEndpoint({
        call: (_q, res, rx) => {
          pending = rx.rpcId;
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }).end('id: ev-1\nretry: 150\ndata: \n\n');
        },
        onGet: (req, res) => {
          lastEventId = req.headers['last-event-id'] as string | undefined;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(
            `id: ev-2\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result: { content: [{ type: 'text', text: 'rate 1.08' }] } })}\n\n`,
          );
        },
      }),
      { tool: { name: 'get_rate', expectText: '1.08' } },
    );
    expectVerdict(v, 'healthy', null);
    expect(received.filter((m) => m === 'GET')).toHaveLength(1);
    expect(lastEventId).toBe('ev-1');
  });

  it('SEP-1699: resumptions the server refuses (GET → 400) → failed/timeout naming the event and what the GETs got', async () => {
    const { v, received } = await judgeFault(
      legacyEndpoint({
        call: (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }).end('id: ev-9\nretry: 50\ndata: \n\n');
        },
        onGet: (_q, res) => {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('no such stream');
        },
      }),
      { tool: { name: 'get_rate' } },
    );
    expectVerdict(
      v,
      'failed',
      'timeout',
      /closed the answer's stream after event "ev-9"; 2 resumption\(s\) with Last-Event-ID brought no answer \(last: HTTP 400\)/,
    );
    expect(received.filter((m) => m === 'GET')).toHaveLength(2);
  });

  it('SEP-1699: a retry longer than the budget left → no resumption, failed/timeout within the bound', async () => {
    const { v, received } = await judgeFault(
      legacyEndpoint({
        call: (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }).end('id: ev-1\nretry: 60000\ndata: \n\n');
        },
      }),
      { tool: { name: 'get_rate' } },
    );
    expectVerdict(v, 'failed', 'timeout');
    expect(received).not.toContain('GET');
  });
});
