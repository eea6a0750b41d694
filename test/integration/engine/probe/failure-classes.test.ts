/** One test per failure class: each endpoint fault ends in exactly the class the taxonomy names. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithTools } from '../../../helpers/tools.ts';
import { z } from 'zod';
import { rateTool, startMcpServer, startRatesApi, type RatesApi } from '../../../../functions/demo/servers.ts';
import { judge, judgeAll } from '../../../../functions/engine/judge/judge.ts';
import { failureClasses } from '../../../../functions/base/common/verdict.ts';
import { modernEndpoint, readOnlyRateTool, rpcError, rpcResult, selfSignedCert, startFaultServer } from '../../../helpers/faults.ts';
import { freePort } from '../../../helpers/moto.ts';
import { target } from '../../../helpers/probe.ts';

let api: RatesApi;
beforeAll(async () => {
  api = await startRatesApi();
});
afterAll(async () => {
  await api.close();
});

const seen = new Set<string>();
afterAll(() => {
  // The taxonomy and this file move together: a new class needs its test here.
  expect([...seen].sort()).toEqual([...failureClasses].sort());
});

describe('failure classes', () => {
  it('classifies a refused connection as unreachable', async () => {
    const v = await judge(target(`http://127.0.0.1:${await freePort()}/mcp`));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'unreachable', revision: null });
    expect(v.detail).toContain('ECONNREFUSED');
    seen.add(v.failure!);
  });

  itWithTools(['openssl'], 'classifies a self-signed certificate as tls and never accepts it', async () => {
    const server = await startFaultServer(
      (_req, res) => {
        res.end('{}');
      },
      { tls: selfSignedCert() },
    );
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'tls' });
      expect(server.received).toHaveLength(0);
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies a delegated grant with no usable access token as canary_credential: inconclusive, the endpoint never called', async () => {
    const server = await startFaultServer((_req, res) => {
      res.statusCode = 401;
      res.end();
    });
    try {
      const t = target(server.url, {
        headers: {},
        auth: { authorizationCode: { store: { secretsManager: 'mcp-canary/rates/grant' }, allowPrivateNetwork: true } },
      });
      const v = await judge(t, {
        oauthSecrets: { delegated: { missing: 'nothing is published in Secrets Manager secret "mcp-canary/rates/grant/access"' } },
      });
      expect(v).toMatchObject({ outcome: 'inconclusive', failure: 'canary_credential' });
      expect(v.detail).toContain(`mcp-canary login ${server.url}`);
      expect(server.received).toHaveLength(0);
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it("classifies a gateway's backend behind a gateway that is down as gateway_down: inconclusive, only the gateway failed", async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const [gateway, ...backends] = await judgeAll(
      target(url, { tool: undefined, backends: [{ name: 'rates', tool: { name: 'get_rate' } }] }),
    );
    expect(gateway).toMatchObject({ outcome: 'failed', failure: 'unreachable' });
    expect(backends).toHaveLength(1);
    expect(backends[0]).toMatchObject({ target: 'rates/rates', outcome: 'inconclusive', failure: 'gateway_down' });
    seen.add(backends[0]!.failure!);
  });

  it('classifies a server that never answers as timeout, within the request timeout', async () => {
    const server = await startFaultServer(() => new Promise(() => {}));
    try {
      const v = await judge(target(server.url, { timeoutMs: 300 }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'timeout' });
      // auto mode does not fall back after a timeout: a second attempt would only double the wait
      expect(server.received.map((r) => r.rpcMethod)).toEqual(['server/discover']);
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies an HTML 502 from a proxy as http_status', async () => {
    const server = await startFaultServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status' });
      expect(v.detail).toContain('HTTP 502');
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies a 401 as auth, never as healthy, and does not fall back', async () => {
    const server = await startMcpServer({ era: 'modern', tools: [rateTool(api)], requireAuthorization: 'Bearer the-right-token' });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
      expect(v.detail).toContain('HTTP 401');
      expect(v.detail).toContain('invalid_token');
      expect(server.methods()).toEqual(['server/discover']);
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies 200 with a body that is not JSON-RPC as protocol', async () => {
    const server = await startFaultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello": ');
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'protocol' });
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies a session forgotten twice as session_lost', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], sessions: 'forget-always' });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'session_lost' });
      expect(server.methods().filter((m) => m === 'initialize')).toHaveLength(2);
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies a pinned revision the server does not speak as revision', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { revision: '2026-07-28' }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'revision' });
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies a gateway whose backend is down (initialize → -32603 "fetch failed") as server_error, pinned or auto', async () => {
    const server = await startFaultServer((_q, res, rx) => {
      if (rx.rpcMethod === 'server/discover') return rpcError(res, 400, null, -32000, 'Bad Request: Server not initialized');
      rpcError(res, 200, rx.rpcId, -32603, 'fetch failed');
    });
    try {
      for (const revision of ['auto', '2025-11-25'] as const) {
        const v = await judge(target(server.url, { revision }));
        expect(v).toMatchObject({ outcome: 'failed', failure: 'server_error' });
        expect(v.detail).toMatch(/^initialize: the server answered JSON-RPC error -32603 \(internal error\): "fetch failed"/);
        seen.add(v.failure!);
      }
    } finally {
      await server.close();
    }
  });

  it('classifies a tools/list without the canary tool as tool_missing, naming what is there', async () => {
    const server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { tool: { name: 'get_weather' } }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_missing' });
      expect(v.detail).toContain('get_rate');
      expect(server.methods()).not.toContain('tools/call');
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies a flow step whose capability the server does not advertise as capability_missing, never sending it', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { tool: undefined, flow: [{ id: 'docs', kind: 'resources/list' }] }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'capability_missing' });
      expect(v.detail).toContain('step 1 "docs": resources/list: not sent — the server does not advertise the resources capability');
      expect(server.methods()).not.toContain('resources/list');
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('classifies an expired upstream key as tool_error while health and protocol stay green', async () => {
    const revoked = await startRatesApi();
    revoked.revokeKey();
    const server = await startMcpServer({ era: 'modern', tools: [rateTool(revoked)] });
    try {
      const v = await judge(target(server.url, { healthUrl: server.url.replace(/\/mcp$/, '/health') }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
      expect(v.probes.map((p) => [p.name, p.ok])).toEqual([
        ['health', true],
        ['discover', true],
        ['tools/list', true],
        ['tools/call', false],
      ]);
      expect(v.detail).toContain('upstream rates API answered HTTP 401');
      seen.add(v.failure!);
    } finally {
      await server.close();
      await revoked.close();
    }
  });

  it('classifies an answer that misses --expect-json as assertion, showing what was seen', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { tool: { name: 'get_rate', expectJson: { rate: 1.5 }, expectText: 'EURUSD' } }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'assertion' });
      expect(v.detail).toContain('rate == 1.5, got 1.08');
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });

  it('refuses to call a tool without readOnlyHint: inconclusive / unsafe_tool, and the tool is never called', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [{ name: 'get_rate', handler: () => ({ content: [{ type: 'text', text: 'called!' }] }) }],
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'inconclusive', failure: 'unsafe_tool' });
      expect(v.detail).toContain('has no annotations');
      expect(server.methods()).not.toContain('tools/call');
      seen.add(v.failure!);
    } finally {
      await server.close();
    }
  });
});

describe('answer checks', () => {
  it('fails structuredContent that breaks the listed outputSchema as assertion', async () => {
    const server = await startFaultServer(
      modernEndpoint({
        tools: [readOnlyRateTool],
        call: () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { rate: 'not a number' } }),
      }),
    );
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'assertion', revision: '2026-07-28' });
      expect(v.detail).toContain('outputSchema');
    } finally {
      await server.close();
    }
  });

  it('reports a server-side output validation error as tool_error with its text', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [
        {
          name: 'get_rate',
          annotations: { readOnlyHint: true },
          outputSchema: z.object({ rate: z.number() }),
          handler: () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { rate: 'not a number' } }),
        },
      ],
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
      expect(v.detail).toMatch(/output/i);
    } finally {
      await server.close();
    }
  });

  it('calls a destructive tool only when the target allows it', async () => {
    const tool = {
      name: 'reset_cache',
      annotations: { destructiveHint: true },
      handler: () => ({ content: [{ type: 'text' as const, text: 'done' }] }),
    };
    const server = await startMcpServer({ era: 'modern', tools: [tool] });
    try {
      const refused = await judge(target(server.url, { tool: { name: 'reset_cache' } }));
      expect(refused).toMatchObject({ outcome: 'inconclusive', failure: 'unsafe_tool' });
      expect(refused.detail).toContain('destructiveHint: true');
      const allowed = await judge(target(server.url, { tool: { name: 'reset_cache', allowUnsafe: true, expectText: 'done' } }));
      expect(allowed).toMatchObject({ outcome: 'healthy' });
      expect(server.methods().filter((m) => m === 'tools/call')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('does not list tools when the server does not advertise them', async () => {
    const server = await startFaultServer((_req, res, rx) => {
      if (rx.rpcMethod === 'server/discover') {
        return rpcResult(res, rx.rpcId, {
          supportedVersions: ['2026-07-28'],
          capabilities: {},
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bare', version: '1' } },
        });
      }
      res.writeHead(500).end();
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_missing', revision: '2026-07-28' });
      expect(server.received.map((r) => r.rpcMethod)).toEqual(['server/discover']);
    } finally {
      await server.close();
    }
  });
});
