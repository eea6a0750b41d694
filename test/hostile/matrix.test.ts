/**
 * The hostile-endpoint matrix: what a broken or hostile endpoint does → the verdict the canary must
 * reach → the bound it must hold. Real sockets on 127.0.0.1. The same rows are the table in
 * test/hostile/README.md; a row added here belongs there too.
 *
 * The bounds are hang protection, not speed: a row's limit is its request timeout or run budget plus
 * 10 %, generous enough that a slow machine never trips it, tight enough that a hang always does.
 */
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetInput } from '../../functions/config/target.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi } from '../../functions/demo/servers.ts';
import { judge } from '../../functions/probe/judge.ts';
import type { Verdict } from '../../functions/verdict.ts';
import { modernEndpoint, readOnlyRateTool, rpcError, rpcResult, selfSignedCert, startFaultServer, type FaultHandler } from '../support/faults.ts';
import { freePort } from '../support/moto.ts';
import { target } from '../probe/helpers.ts';

const TIMEOUT_MS = 600;
const BUDGET_MS = 3_000;
/** The run budget + 10 %: no row may take longer. */
const BOUND_MS = BUDGET_MS * 1.1;

let api: RatesApi;
beforeAll(async () => { api = await startRatesApi(); });
afterAll(async () => { await api.close(); });

async function judgeFault(handler: FaultHandler, over: Partial<TargetInput> = {}, tls = false): Promise<{ v: Verdict; received: string[] }> {
  const server = await startFaultServer(handler, tls ? { tls: selfSignedCert() } : {});
  try {
    const v = await judge(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, ...over }));
    return { v, received: server.received.map((r) => r.rpcMethod ?? r.method) };
  } finally {
    await server.close();
  }
}

function expectVerdict(v: Verdict, outcome: string, failure: string | null, detail?: RegExp): void {
  expect({ outcome: v.outcome, failure: v.failure }).toEqual({ outcome, failure });
  if (detail) expect(v.detail).toMatch(detail);
  expect(v.durationMs).toBeLessThanOrEqual(BOUND_MS);
}

/** Streams `total` bytes in 64 KiB chunks until the client goes away. */
function hugeBody(total: number): FaultHandler {
  return (_req, res) => new Promise<void>((resolve) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
      resolve();
    };
    res.on('close', () => resolve());
    pump();
  });
}

describe('network and TLS', () => {
  it('connection refused → failed/unreachable', async () => {
    const v = await judge(target(`http://127.0.0.1:${await freePort()}/mcp`, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
    expectVerdict(v, 'failed', 'unreachable', /ECONNREFUSED/);
  });

  it('a port fetch refuses outright (6000) → failed/unreachable, not protocol', async () => {
    const v = await judge(target('http://127.0.0.1:6000/mcp', { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
    expectVerdict(v, 'failed', 'unreachable', /bad port/);
  });

  it('a DNS name that does not resolve → failed/unreachable', async () => {
    const v = await judge(target('http://mcp.does-not-exist.invalid/mcp', { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
    expectVerdict(v, 'failed', 'unreachable', /ENOTFOUND|EAI_AGAIN/);
  });

  it('a self-signed certificate → failed/tls, no request ever sent', async () => {
    const { v, received } = await judgeFault((_q, res) => { res.end(); }, {}, true);
    expectVerdict(v, 'failed', 'tls', /SELF_SIGNED|CERT/);
    expect(received).toEqual([]);
  });

  it('a TCP port that accepts and never speaks HTTP → failed/timeout within the request timeout', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server: NetServer = createNetServer((s) => { sockets.add(s); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const v = await judge(target(`http://127.0.0.1:${port}/mcp`, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
      expectVerdict(v, 'failed', 'timeout');
      expect(v.durationMs).toBeLessThanOrEqual(TIMEOUT_MS * 1.1 + 200);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('slow, endless and huge answers', () => {
  it('accepts the request and never answers → failed/timeout, discover only (no fallback after a timeout)', async () => {
    const { v, received } = await judgeFault(() => new Promise(() => {}));
    expectVerdict(v, 'failed', 'timeout');
    expect(received).toEqual(['server/discover']);
  });

  it('sends headers, then drips the body one byte at a time → failed/timeout', async () => {
    const { v } = await judgeFault((_q, res) => new Promise<void>((resolve) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => { clearInterval(t); resolve(); });
    }));
    expectVerdict(v, 'failed', 'timeout');
  });

  it('an SSE stream that only sends keep-alive comments forever → failed/timeout', async () => {
    const { v } = await judgeFault((_q, res) => new Promise<void>((resolve) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const t = setInterval(() => res.write(': keep-alive\n\n'), 50);
      res.on('close', () => { clearInterval(t); resolve(); });
    }));
    expectVerdict(v, 'failed', 'timeout');
  });

  it('a 200 MB body → failed/protocol, reading stops at the 4 MiB cap', async () => {
    const { v } = await judgeFault(hugeBody(200 * 1024 * 1024), { timeoutMs: 2_000 });
    expectVerdict(v, 'failed', 'protocol', /too large \(over 4194304 bytes\)/);
  });
});

describe('answers that are not MCP', () => {
  it('an HTML 502 from a proxy → failed/http_status', async () => {
    const { v } = await judgeFault((_q, res) => { res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'); });
    expectVerdict(v, 'failed', 'http_status', /HTTP 502, text\/html/);
  });

  it('200 with invalid JSON → failed/protocol', async () => {
    const { v } = await judgeFault((_q, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "id": '); });
    expectVerdict(v, 'failed', 'protocol');
  });

  it('valid JSON-RPC with the wrong id → failed/protocol, at once rather than at the timeout', async () => {
    const { v } = await judgeFault((_q, res) => rpcResult(res, 987654, { supportedVersions: ['2026-07-28'], capabilities: {} }), { timeoutMs: 2_500 });
    expectVerdict(v, 'failed', 'protocol', /carries id 987654/);
    expect(v.durationMs).toBeLessThan(2_500);
  });

  it('a JSON-RPC error to discover and to initialize → failed/protocol, judged by the first', async () => {
    const { v, received } = await judgeFault((_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'database is down'));
    expectVerdict(v, 'failed', 'protocol', /^discover: .*database is down.*initialize also failed/);
    expect(received).toEqual(['server/discover', 'initialize']);
  });

  it('a JSON-RPC error to tools/list → failed/protocol', async () => {
    const endpoint = modernEndpoint({ tools: [] });
    const { v } = await judgeFault((req, res, rx) => (rx.rpcMethod === 'tools/list' ? rpcError(res, 200, rx.rpcId, -32603, 'index unavailable') : endpoint(req, res, rx)));
    expectVerdict(v, 'failed', 'protocol', /tools\/list: JSON-RPC error -32603: index unavailable/);
  });

  it('an SSE answer with a malformed event, then the end of the stream → failed/protocol (not a slow server)', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: message\ndata: {not json\n\n');
    });
    expectVerdict(v, 'failed', 'protocol', /event stream ended without an answer \(1 event\(s\), 1 not JSON\)/);
  });

  it('valid JSON-RPC with the wrong content type → failed/protocol', async () => {
    const { v } = await judgeFault((_q, res, rx) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify({ jsonrpc: '2.0', id: rx.rpcId, result: {} }));
    });
    expectVerdict(v, 'failed', 'protocol', /content type|text\/plain/i);
  });
});

describe('HTTP statuses', () => {
  it('401 with WWW-Authenticate → failed/auth, the challenge in the detail, no fallback', async () => {
    const { v, received } = await judgeFault((_q, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="https://auth.example/.well-known/oauth-protected-resource", error="invalid_token"' }).end();
    });
    expectVerdict(v, 'failed', 'auth', /HTTP 401.*invalid_token/);
    expect(received).toEqual(['server/discover']);
  });

  it('403 → failed/auth', async () => {
    const { v } = await judgeFault((_q, res) => { res.writeHead(403).end('forbidden'); });
    expectVerdict(v, 'failed', 'auth', /HTTP 403/);
  });

  it('429 with Retry-After → failed/http_status, Retry-After in the detail', async () => {
    const { v } = await judgeFault((_q, res) => { res.writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' }).end('{}'); });
    expectVerdict(v, 'failed', 'http_status', /HTTP 429.*Retry-After: 120/);
  });

  it.each([500, 503])('%i with a JSON-RPC body → failed/http_status', async (status) => {
    const { v, received } = await judgeFault((_q, res, rx) => rpcError(res, status, rx.rpcId, -32603, 'internal'));
    expectVerdict(v, 'failed', 'http_status', new RegExp(`HTTP ${status}`));
    expect(received).toEqual(['server/discover', 'initialize']);
  });
});

describe('sessions and eras', () => {
  it('a 2025 server that forgets the session after initialize, always → failed/session_lost', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], sessions: 'forget-always' });
    try {
      const v = await judge(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
      expectVerdict(v, 'failed', 'session_lost');
    } finally {
      await server.close();
    }
  });

  it('a 2025 server that forgets the session once → degraded, naming the likely cause', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], sessions: 'forget-once' });
    try {
      const v = await judge(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
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
      for (const [k, val] of Object.entries(req.headers)) if (typeof val === 'string' && k !== 'host' && k !== 'content-length') headers[k] = val;
      const r = await fetch(upstream, { method: rx.method, headers, ...(rx.body ? { body: rx.body } : {}) });
      res.writeHead(r.status, Object.fromEntries(r.headers));
      res.end(Buffer.from(await r.arrayBuffer()));
    });
    try {
      const v = await judge(target(lb.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, revision: '2025-11-25' }));
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
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }));
    };
    const server = await startFaultServer(flipping);
    try {
      const verdicts = [];
      for (let i = 0; i < 3; i++) verdicts.push(await judge(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS })));
      for (const v of verdicts) expectVerdict(v, 'failed', 'revision', /tools\/list: .*HTTP 400: "Bad Request: Server not initialized".*discover offered 2026-07-28/);
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
        const v = await judge(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
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
    expectVerdict(await judge(target(url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS })), 'healthy', null);
    await first.close();
    const port = Number(new URL(url).port);
    const second = await startMcpServer({ era: 'modern', tools: [rateTool(api)], port });
    try {
      expectVerdict(await judge(target(url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS })), 'healthy', null);
    } finally {
      await second.close();
    }
  });
});

describe('tools', () => {
  const call = (answer: unknown): FaultHandler => modernEndpoint({ tools: [readOnlyRateTool], call: () => answer });

  it('a tool that answers isError → failed/tool_error with its text', async () => {
    const { v } = await judgeFault(call({ isError: true, content: [{ type: 'text', text: 'upstream key expired' }] }));
    expectVerdict(v, 'failed', 'tool_error', /upstream key expired/);
  });

  it('an unknown tool → failed/tool_missing, never called', async () => {
    const { v, received } = await judgeFault(call({ content: [] }), { tool: { name: 'nope' } });
    expectVerdict(v, 'failed', 'tool_missing');
    expect(received).not.toContain('tools/call');
  });

  it('structuredContent that breaks the outputSchema → failed/assertion', async () => {
    const { v } = await judgeFault(call({ content: [], structuredContent: { rate: 'high' } }));
    expectVerdict(v, 'failed', 'assertion', /outputSchema/);
  });

  it('a result with resultType "input_required" → failed/tool_error: a canary tool must answer unattended', async () => {
    const { v } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod === 'tools/call') {
        return rpcResult(res, rx.rpcId, { resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } } } });
      }
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    });
    expectVerdict(v, 'failed', 'tool_error', /input_required/);
  });

  it('a tool without annotations → inconclusive/unsafe_tool, never called', async () => {
    const { v, received } = await judgeFault(modernEndpoint({ tools: [{ name: 'get_rate', inputSchema: { type: 'object' } }] }));
    expectVerdict(v, 'inconclusive', 'unsafe_tool', /has no annotations/);
    expect(received).not.toContain('tools/call');
  });

  it('a destructive tool → inconclusive/unsafe_tool, never called', async () => {
    const { v, received } = await judgeFault(modernEndpoint({ tools: [{ name: 'get_rate', inputSchema: { type: 'object' }, annotations: { destructiveHint: true, readOnlyHint: false } }] }));
    expectVerdict(v, 'inconclusive', 'unsafe_tool', /destructiveHint: true/);
    expect(received).not.toContain('tools/call');
  });
});

describe('secrets', () => {
  it('a redirect to another origin: neither Authorization nor any --header is forwarded there', async () => {
    const elsewhere = await startFaultServer((_q, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
    try {
      const { v } = await judgeFault((_q, res) => { res.writeHead(307, { location: elsewhere.url.replace('127.0.0.1', 'localhost') }).end(); },
        { headers: { Authorization: 'Bearer sk-redirect-31337', 'X-Api-Key': 'key-redirect-31337' } });
      expectVerdict(v, 'failed', 'http_status', /HTTP 307 redirect to http:\/\/localhost:\d+ not followed/);
      expect(elsewhere.received).toEqual([]);
      for (const r of elsewhere.received) {
        expect(r.headers.authorization).toBeUndefined();
        expect(r.headers['x-api-key']).toBeUndefined();
      }
      expect(JSON.stringify(v)).not.toContain('31337');
    } finally {
      await elsewhere.close();
    }
  });

  it('a server that echoes the Authorization header in its error body and its tool text → the secret is nowhere in the verdict', async () => {
    const echo: FaultHandler = (req, res, rx) => {
      if (rx.rpcMethod === 'tools/call') return rpcResult(res, rx.rpcId, { resultType: 'complete', isError: true, content: [{ type: 'text', text: `token ${req.headers.authorization}` }] });
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    };
    const { v } = await judgeFault(echo);
    expectVerdict(v, 'failed', 'tool_error', /\[redacted\]/);
    expect(JSON.stringify(v)).not.toContain('sk-live-7f3a9c2e5b1d');
  });

  it('a secret echoed across the point where a detail is cut → not even its head is left', async () => {
    // The answer check shows 79 characters of the text and an ellipsis; the cut falls inside the token.
    const echo: FaultHandler = (req, res, rx) => {
      if (rx.rpcMethod === 'tools/call') return rpcResult(res, rx.rpcId, { resultType: 'complete', content: [{ type: 'text', text: `${'x'.repeat(66)}${req.headers.authorization}` }], structuredContent: { rate: 1.08 } });
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    };
    const { v } = await judgeFault(echo, { tool: { name: 'get_rate', expectText: 'EURUSD' } });
    expectVerdict(v, 'failed', 'assertion', /\[redacted\]…/);
    expect(JSON.stringify(v)).not.toMatch(/sk-l/);
  });
});
