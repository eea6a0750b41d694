/**
 * The hostile-endpoint matrix (answers that are not MCP, HTTP statuses, answers that cannot carry the
 * response, and the server's own words): what a broken or hostile endpoint does → the verdict the canary
 * must reach → the bound it must hold. Real sockets on 127.0.0.1. The same rows are the table in
 * test/integration/engine/judge/hostile/README.md; a row added here belongs there too. The matrix is split by
 * concern over matrix-*.test.ts.
 *
 * The bounds are hang protection, not speed: a row's limit is its request timeout or run budget plus 10 %,
 * generous enough that a slow machine never trips it, tight enough that a hang always does.
 */
import { describe, expect, it } from 'vitest';
import { modernEndpoint, readOnlyRateTool, rpcError, rpcResult } from '../../../../helpers/faults.ts';
import { expectVerdict, judgeFault, legacyEndpoint } from '../../../../helpers/hostile/harness.ts';

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
    expectVerdict(v, 'failed', 'server_error', /^discover: .*-32603 \(internal error\): "database is down".*initialize met the same$/);
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
    expectVerdict(v, 'failed', 'protocol', /the event stream stopped making sense: an event that is not JSON \("\{not json"\)/);
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
    // A 500 may come from a 2025 server that serves sessions fine: one initialize. A 503 is transient: no era evidence, none.
    expect(received).toEqual(status === 500 ? ['server/discover', 'initialize'] : ['server/discover']);
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

  it("404 with Express's page to every POST (an HTTP+SSE endpoint at /mcp, as mcp-hub 4's) → failed/http_status, its <pre> words and the hint", async () => {
    const { v } = await judgeFault((q, res) => {
      res
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST ${q.url}</pre>\n</body>\n</html>\n`,
        );
    });
    expectVerdict(
      v,
      'failed',
      'http_status',
      /HTTP 404, text\/html: "Cannot POST \/mcp" — no POST route at this path: a wrong path, or an HTTP\+SSE \(2024-11-05\) endpoint that takes only GET\?/,
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

  it('429 with Retry-After to discover → failed/http_status, its Retry-After kept, and no initialize (no era evidence)', async () => {
    const { v, received } = await judgeFault((_q, res, rx) => {
      if (rx.rpcMethod === 'server/discover')
        return void res.writeHead(429, { 'retry-after': '120', 'content-type': 'text/plain' }).end('slow down');
      rpcError(res, 400, rx.rpcId, -32600, 'bad request');
    });
    expectVerdict(v, 'failed', 'http_status', /^discover: HTTP 429.*Retry-After: 120/);
    expect(received).toEqual(['server/discover']);
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
    expectVerdict(v, 'failed', 'http_status', /redirects within the endpoint's own origin never reached an answer \(a redirect loop\)/);
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
