/**
 * The hostile-endpoint matrix: what a broken or hostile endpoint does → the verdict the canary must
 * reach → the bound it must hold. Real sockets on 127.0.0.1. The same rows are the table in
 * test/integration/judge/hostile/README.md; a row added here belongs there too.
 *
 * The bounds are hang protection, not speed: a row's limit is its request timeout or run budget plus
 * 10 %, generous enough that a slow machine never trips it, tight enough that a hang always does.
 */
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi } from '../../../../functions/demo/servers.ts';
import { modernEndpoint, readOnlyRateTool, rpcError, rpcResult, startFaultServer, type FaultHandler } from '../../../helpers/faults.ts';
import { freePort } from '../../../helpers/moto.ts';
import { target } from '../../../helpers/probe.ts';
import {
  BUDGET_MS,
  expectVerdict,
  hugeBody,
  judgeFault,
  legacyEndpoint,
  TIMEOUT_MS,
  judgeTimed,
  latenessOf,
} from '../../../helpers/hostile/harness.ts';
import { startBlackhole } from '../../../helpers/blackhole.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** TLS rows need openssl (a self-signed certificate), the unfinished handshake python3: in CI their absence fails with the install line, elsewhere the matrix skips by name. */
const describe = describeNeeding(['openssl', 'python3']);

let api: RatesApi;
beforeAll(async () => {
  api = await startRatesApi();
});
afterAll(async () => {
  await api.close();
});

describe('network and TLS', () => {
  it('connection refused → failed/unreachable', async () => {
    const v = await judgeTimed(target(`http://127.0.0.1:${await freePort()}/mcp`, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
    expectVerdict(v, 'failed', 'unreachable', /ECONNREFUSED/);
  });

  it('a port fetch refuses outright (6000) → failed/unreachable, not protocol', async () => {
    const v = await judgeTimed(target('http://127.0.0.1:6000/mcp', { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
    expectVerdict(v, 'failed', 'unreachable', /bad port/);
  });

  it('a DNS name that does not resolve → failed/unreachable', async () => {
    const v = await judgeTimed(target('http://mcp.does-not-exist.invalid/mcp', { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
    expectVerdict(v, 'failed', 'unreachable', /ENOTFOUND|EAI_AGAIN/);
  });

  it('a self-signed certificate → failed/tls, no request ever sent', async () => {
    const { v, received } = await judgeFault(
      (_q, res) => {
        res.end();
      },
      {},
      true,
    );
    expectVerdict(v, 'failed', 'tls', /SELF_SIGNED|CERT/);
    expect(received).toEqual([]);
  });

  it('a TCP port that accepts and never speaks HTTP → failed/timeout within the request timeout', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server: NetServer = createNetServer((s) => {
      sockets.add(s);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const v = await judgeTimed(target(`http://127.0.0.1:${port}/mcp`, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
      expectVerdict(v, 'failed', 'timeout');
      expect(v.durationMs).toBeLessThanOrEqual(TIMEOUT_MS * 1.1 + 200 + latenessOf(v));
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
    const { v } = await judgeFault(
      (_q, res) =>
        new Promise<void>((resolve) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          const t = setInterval(() => res.write(' '), 50);
          res.on('close', () => {
            clearInterval(t);
            resolve();
          });
        }),
    );
    expectVerdict(v, 'failed', 'timeout');
  });

  it('an SSE stream that only sends keep-alive comments forever → failed/timeout', async () => {
    const { v } = await judgeFault(
      (_q, res) =>
        new Promise<void>((resolve) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const t = setInterval(() => res.write(': keep-alive\n\n'), 50);
          res.on('close', () => {
            clearInterval(t);
            resolve();
          });
        }),
    );
    expectVerdict(v, 'failed', 'timeout');
  });

  it('a 200 MB body → failed/protocol, reading stops at the 4 MiB cap', async () => {
    const { v } = await judgeFault(hugeBody(200 * 1024 * 1024), { timeoutMs: 2_000 });
    expectVerdict(v, 'failed', 'protocol', /too large \(over 4194304 bytes\)/);
  });
});

describe('answers that are not MCP', () => {
  it('an HTML 502 from a proxy → failed/http_status', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
    });
    expectVerdict(v, 'failed', 'http_status', /HTTP 502, text\/html/);
  });

  it('200 with invalid JSON → failed/protocol', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "id": ');
    });
    expectVerdict(v, 'failed', 'protocol');
  });

  it('valid JSON-RPC with the wrong id → failed/protocol, at once rather than at the timeout', async () => {
    const { v } = await judgeFault((_q, res) => rpcResult(res, 987654, { supportedVersions: ['2026-07-28'], capabilities: {} }), {
      timeoutMs: 2_500,
    });
    expectVerdict(v, 'failed', 'protocol', /carries id 987654/);
    expect(v.durationMs).toBeLessThan(2_500);
  });

  it('a JSON-RPC error to discover and to initialize → failed/server_error (a valid answer, not protocol), judged by the first', async () => {
    const { v, received } = await judgeFault((_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'database is down'));
    expectVerdict(v, 'failed', 'server_error', /^discover: .*-32603 \(internal error\): "database is down".*initialize also failed/);
    expect(received).toEqual(['server/discover', 'initialize']);
  });

  it('a JSON-RPC error to tools/list → failed/server_error with its code and words', async () => {
    const endpoint = modernEndpoint({ tools: [] });
    const { v } = await judgeFault((req, res, rx) =>
      rx.rpcMethod === 'tools/list' ? rpcError(res, 200, rx.rpcId, -32603, 'index unavailable') : endpoint(req, res, rx),
    );
    expectVerdict(
      v,
      'failed',
      'server_error',
      /tools\/list: the server answered JSON-RPC error -32603 \(internal error\): "index unavailable"/,
    );
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
      res
        .writeHead(401, {
          'www-authenticate': 'Bearer resource_metadata="https://auth.example/.well-known/oauth-protected-resource", error="invalid_token"',
        })
        .end();
    });
    expectVerdict(v, 'failed', 'auth', /HTTP 401.*invalid_token/);
    expect(received).toEqual(['server/discover']);
  });

  it('403 → failed/auth', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(403).end('forbidden');
    });
    expectVerdict(v, 'failed', 'auth', /HTTP 403/);
  });

  it('429 with Retry-After → failed/http_status, Retry-After in the detail', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' }).end('{}');
    });
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

  it('a result with resultType "input_required" asking for elicitation → failed/tool_error naming the request: a canary tool must answer unattended', async () => {
    const { v } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod === 'tools/call') {
        return rpcResult(res, rx.rpcId, {
          resultType: 'input_required',
          inputRequests: {
            confirm: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } },
          },
        });
      }
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    });
    expectVerdict(
      v,
      'failed',
      'tool_error',
      /asked for user input \(elicitation\) — input_required: elicitation\/create \("confirm"\) — which the canary cannot grant/,
    );
  });

  it('a tool without annotations → inconclusive/unsafe_tool, never called', async () => {
    const { v, received } = await judgeFault(modernEndpoint({ tools: [{ name: 'get_rate', inputSchema: { type: 'object' } }] }));
    expectVerdict(v, 'inconclusive', 'unsafe_tool', /has no annotations/);
    expect(received).not.toContain('tools/call');
  });

  it('a destructive tool → inconclusive/unsafe_tool, never called', async () => {
    const { v, received } = await judgeFault(
      modernEndpoint({
        tools: [{ name: 'get_rate', inputSchema: { type: 'object' }, annotations: { destructiveHint: true, readOnlyHint: false } }],
      }),
    );
    expectVerdict(v, 'inconclusive', 'unsafe_tool', /destructiveHint: true/);
    expect(received).not.toContain('tools/call');
  });
});

describe('secrets', () => {
  it('a redirect to another origin: neither Authorization nor any --header is forwarded there', async () => {
    const elsewhere = await startFaultServer((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    try {
      const { v } = await judgeFault(
        (_q, res) => {
          res.writeHead(307, { location: elsewhere.url.replace('127.0.0.1', 'localhost') }).end();
        },
        { headers: { Authorization: 'Bearer sk-redirect-31337', 'X-Api-Key': 'key-redirect-31337' } },
      );
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
      if (rx.rpcMethod === 'tools/call')
        return rpcResult(res, rx.rpcId, {
          resultType: 'complete',
          isError: true,
          content: [{ type: 'text', text: `token ${req.headers.authorization}` }],
        });
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    };
    const { v } = await judgeFault(echo);
    expectVerdict(v, 'failed', 'tool_error', /\[redacted\]/);
    expect(JSON.stringify(v)).not.toContain('sk-live-7f3a9c2e5b1d');
  });

  it('a secret echoed across the point where a detail is cut → not even its head is left', async () => {
    // The answer check shows 299 characters of the text and an ellipsis; the cut falls inside the token.
    const echo: FaultHandler = (req, res, rx) => {
      if (rx.rpcMethod === 'tools/call')
        return rpcResult(res, rx.rpcId, {
          resultType: 'complete',
          content: [{ type: 'text', text: `${'x'.repeat(286)}${req.headers.authorization}` }],
          structuredContent: { rate: 1.08 },
        });
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    };
    const { v } = await judgeFault(echo, { tool: { name: 'get_rate', expectText: 'EURUSD' } });
    expectVerdict(v, 'failed', 'assertion', /\[redacted\]…/);
    expect(JSON.stringify(v)).not.toMatch(/sk-l/);
  });
});

describe('answers that cannot carry the response: failed at once, not at the timeout', () => {
  const LONG = { timeoutMs: 2_500 };
  const sse = (res: import('node:http').ServerResponse, ...events: string[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of events) res.write(e);
    // The stream stays open: only the wire's own check can end the wait early.
  };

  it('an SSE answer with both result and error → failed/protocol at once', async () => {
    const { v } = await judgeFault(
      (_q, res, rx) =>
        sse(
          res,
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: rx.rpcId, result: {}, error: { code: 1, message: 'x' } })}\n\n`,
        ),
      LONG,
    );
    expectVerdict(v, 'failed', 'protocol', /carries both result and error/);
    expect(v.durationMs).toBeLessThan(2_500);
  });

  it('a JSON answer of [] → failed/protocol at once', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    }, LONG);
    expectVerdict(v, 'failed', 'protocol', /empty JSON array/);
    expect(v.durationMs).toBeLessThan(2_500);
  });

  it('an SSE event of [] → failed/protocol at once', async () => {
    const { v } = await judgeFault((_q, res) => sse(res, 'data: []\n\n'), LONG);
    expectVerdict(v, 'failed', 'protocol', /empty JSON array/);
    expect(v.durationMs).toBeLessThan(2_500);
  });

  it("on 2026-07-28, a tool call's stream that ends after an event id without the answer → failed/protocol at once (no resumption there)", async () => {
    const endpoint = modernEndpoint({ tools: [readOnlyRateTool] });
    const { v, received } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod !== 'tools/call') return endpoint(req, res, rx);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: ev-1\nretry: 100\ndata: \n\n');
    }, LONG);
    expectVerdict(v, 'failed', 'protocol', /tools\/call: the event stream ended without an answer/);
    expect(v.durationMs).toBeLessThan(2_500);
    expect(received).not.toContain('GET');
  });

  it('202 Accepted to a request → failed/protocol at once', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(202).end();
    }, LONG);
    expectVerdict(v, 'failed', 'protocol', /HTTP 202 Accepted to a request/);
    expect(v.durationMs).toBeLessThan(2_500);
  });

  it('a 200 whose body breaks off before its Content-Length → failed/protocol "broke off", not "cannot connect"', async () => {
    const { v } = await judgeFault((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"jsonrpc":"2.0","id":');
      setTimeout(() => req.socket.destroy(), 20);
    });
    expectVerdict(v, 'failed', 'protocol', /broke off after \d+ byte\(s\) of the 500 its Content-Length promised/);
    expect(v.detail).not.toMatch(/cannot connect/);
  });
});

describe("the server's own words and the class the evidence names", () => {
  it('403 with a plain-text reason → failed/auth, the reason in the detail', async () => {
    const { v, url } = await judgeFault((req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`Access is only allowed at localhost:${req.socket.localPort}\nmore text`);
    });
    expectVerdict(v, 'failed', 'auth', new RegExp(`HTTP 403, text/plain: "Access is only allowed at localhost:${new URL(url).port}"`));
  });

  it("200 with an HTML login page → failed/protocol, the page title beside the SDK's complaint", async () => {
    const { v } = await judgeFault((_q, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html><head><title>Sign in to Acme SSO</title></head></html>');
    });
    expectVerdict(v, 'failed', 'protocol', /unexpected content type.*\(HTTP 200, text\/html: "Sign in to Acme SSO"\)/i);
  });

  it('405 to every POST (an HTTP+SSE /sse endpoint) → failed/http_status, saying the canary speaks Streamable HTTP', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('Method Not Allowed');
    });
    expectVerdict(
      v,
      'failed',
      'http_status',
      /HTTP 405, text\/plain: "Method Not Allowed" — the endpoint refuses POST: an HTTP\+SSE \(2024-11-05\) \/sse endpoint\?/,
    );
  });

  it('404 with a plain JSON error → failed/http_status, its message in the detail', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found","message":"no route /mcp"}');
    });
    expectVerdict(v, 'failed', 'http_status', /HTTP 404, application\/json: "no route \/mcp"/);
  });

  it('400 with a JSON-RPC message on every request → failed/http_status, the message in the detail', async () => {
    const { v } = await judgeFault((_q, res, rx) => rpcError(res, 400, rx.rpcId, -32600, 'cannot serve 2026-07-28: built by the 1.x SDK'));
    expectVerdict(v, 'failed', 'http_status', /HTTP 400, application\/json: "cannot serve 2026-07-28: built by the 1\.x SDK"/);
  });

  it('a tool that needs user input on 2026-07-28 (HTTP 400, -32021) → failed/tool_error naming the capability', async () => {
    const endpoint = modernEndpoint({ tools: [readOnlyRateTool] });
    const { v } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod !== 'tools/call') return endpoint(req, res, rx);
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: rx.rpcId,
          error: {
            code: -32021,
            message: 'the client capabilities do not declare the required capability',
            data: { requiredCapabilities: { elicitation: {} } },
          },
        }),
      );
    });
    expectVerdict(v, 'failed', 'tool_error', /requires the client capability elicitation/);
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'a wrong path (404 HTML) pinned to %s → failed/http_status, not revision',
    async (revision) => {
      const { v } = await judgeFault(
        (_q, res) => {
          res.writeHead(404, { 'content-type': 'text/html' }).end('<html><title>Not Found</title></html>');
        },
        { revision },
      );
      expectVerdict(v, 'failed', 'http_status', /HTTP 404, text\/html: "Not Found"/);
    },
  );

  it('a 2025 server pinned to 2026-07-28 (400 with JSON-RPC) → failed/revision', async () => {
    const { v } = await judgeFault(legacyEndpoint({}), { revision: '2026-07-28' });
    expectVerdict(v, 'failed', 'revision', /does not speak the pinned 2026-07-28/);
  });

  it('429 with Retry-After to discover, then 400 to initialize → failed/http_status, discover and its Retry-After kept', async () => {
    const { v, received } = await judgeFault((_q, res, rx) => {
      if (rx.rpcMethod === 'server/discover')
        return void res.writeHead(429, { 'retry-after': '120', 'content-type': 'text/plain' }).end('slow down');
      rpcError(res, 400, rx.rpcId, -32600, 'bad request');
    });
    expectVerdict(v, 'failed', 'http_status', /^discover: HTTP 429.*Retry-After: 120/);
    expect(received).toEqual(['server/discover', 'initialize']);
  });

  it('a discover offering only a future revision, then a failed initialize → failed/revision naming it', async () => {
    const { v } = await judgeFault((_q, res, rx) => {
      if (rx.rpcMethod === 'server/discover') return rpcResult(res, rx.rpcId, { supportedVersions: ['2099-01-01'], capabilities: {} });
      rpcError(res, 400, rx.rpcId, -32600, 'initialize is not supported');
    });
    expectVerdict(v, 'failed', 'revision', /offers only 2099-01-01; the canary speaks 2026-07-28/);
  });

  it('-32022 naming only a future revision → failed/revision naming it', async () => {
    const { v } = await judgeFault((_q, res, rx) => rpcError2022(res, rx.rpcId, ['2099-01-01']));
    expectVerdict(v, 'failed', 'revision', /supports only 2099-01-01/);
  });

  it('-32022 with data.supported naming 2026-07-28 → answered by one retry: healthy, two discovers', async () => {
    const endpoint = modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) });
    let refused = 0;
    const { v, received } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod === 'server/discover' && refused++ === 0) return rpcError2022(res, rx.rpcId, ['2026-07-28']);
      return endpoint(req, res, rx);
    });
    expectVerdict(v, 'healthy', null);
    expect(received.filter((m) => m === 'server/discover')).toHaveLength(2);
  });

  it('a same-origin redirect loop → failed/http_status described as a loop, not the cross-origin rule', async () => {
    const { v } = await judgeFault((_q, res) => {
      res.writeHead(307, { location: '/mcp' }).end();
    });
    expectVerdict(v, 'failed', 'http_status', /redirects within the endpoint's own origin never reach an answer/);
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

describe("the canary's own bounds", () => {
  it('a header value fetch cannot send, read at run time (a secret with an en dash) → inconclusive, nothing sent', async () => {
    const server = await startFaultServer(legacyEndpoint({}));
    try {
      const t = {
        ...target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }),
        headers: { Authorization: 'Bearer abc\u2013def' },
      };
      const v = await judgeTimed(t);
      expectVerdict(
        v,
        'inconclusive',
        null,
        /headers\.Authorization: the value has a character outside Latin-1 .*the canary's configuration/,
      );
      expect(server.received).toEqual([]);
      expect(JSON.stringify(v)).not.toContain('abc\u2013def');
    } finally {
      await server.close();
    }
  });

  it('a server that never completes the TCP handshake → failed/timeout, and no socket outlives the verdict', async () => {
    const blackhole = await startBlackhole();
    const { port } = blackhole;
    try {
      const before = new Set(process.getActiveResourcesInfo().filter((r) => r === 'ConnectWrap'));
      const v = await judgeTimed(target(`http://127.0.0.1:${port}/mcp`, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS }));
      expectVerdict(v, 'failed', 'timeout');
      // A destroyed handle closes on the next turn of the event loop.
      await new Promise((r) => setTimeout(r, 50));
      expect(process.getActiveResourcesInfo().filter((r) => r === 'ConnectWrap').length).toBe(before.size);
    } finally {
      blackhole.kill();
    }
  });
});

function rpcError2022(res: import('node:http').ServerResponse, id: unknown, supported: string[]): void {
  res.writeHead(400, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported, requested: '2026-07-28' } },
    }),
  );
}
