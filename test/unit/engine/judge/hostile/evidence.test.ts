/**
 * The hostile matrix, third set: answers whose class the evidence names — JSON-RPC errors, pinned
 * revisions, mixed eras, 2026-07-28 multi-round-trip results, duplicated tool names, and the details
 * on-call reads. Real sockets on 127.0.0.1 (real SDK servers where one can play the part); every row
 * within the run budget + 10 % (harness.ts). The rows are in test/integration/engine/judge/hostile/README.md.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand, type CheckCommand } from '../../../../../functions/cli/args.ts';
import { startMcpServer } from '../../../../../functions/demo/servers.ts';
import { modernEndpoint, readOnlyRateTool, rpcError, rpcResult, startFaultServer, type FaultHandler } from '../../../../helpers/faults.ts';
import { target } from '../../../../helpers/probe.ts';
import {
  BUDGET_MS,
  expectVerdict,
  judgeFault,
  legacyEndpoint,
  TIMEOUT_MS,
  judgeTimed,
  latenessOf,
} from '../../../../helpers/hostile/harness.ts';
import { startModernSdkServer, startOneSessionServer } from '../../../../helpers/hostile/sdk-servers.ts';

const LIMITS = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS };
const onCall =
  (answer: FaultHandler, era: 'modern' | 'legacy' = 'modern'): FaultHandler =>
  (req, res, rx) =>
    rx.rpcMethod === 'tools/call'
      ? answer(req, res, rx)
      : (era === 'modern' ? modernEndpoint({ tools: [readOnlyRateTool] }) : legacyEndpoint({}))(req, res, rx);

describe('a JSON-RPC error is a valid answer: classed by its meaning and the step', () => {
  it.each([
    ['modern', 'GitLab API error: 401 Unauthorized'],
    ['legacy', 'GitLab API error: 401 Unauthorized'],
    ['modern', 'fetch failed'],
    ['legacy', 'fetch failed'],
  ] as const)('tools/call → -32603 on %s ("%s") → failed/tool_error with the code and the words', async (era, words) => {
    const { v } = await judgeFault(onCall((_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, words), era));
    expectVerdict(
      v,
      'failed',
      'tool_error',
      new RegExp(`^tools/call: the tool answered JSON-RPC error -32603 \\(internal error\\): "${words}"`),
    );
  });

  it.each([
    [-32700, 'protocol'],
    [-32600, 'protocol'],
    [-32020, 'protocol'],
    [-32601, 'server_error'],
    [-32602, 'server_error'],
    [-32000, 'server_error'],
    [-32001, 'server_error'],
    [-32050, 'server_error'],
    [7, 'tool_error'],
    [-1, 'tool_error'],
  ])('tools/call → code %i → failed/%s naming it, by its meaning', async (code, failure) => {
    const { v } = await judgeFault(onCall((_q, res, rx) => rpcError(res, 200, rx.rpcId, code, 'no')));
    expectVerdict(v, 'failed', failure, new RegExp(`JSON-RPC error ${code}\\b`));
  });

  it('a gateway whose backend is down (initialize → -32603 "fetch failed") → failed/server_error, auto and pinned alike', async () => {
    const gateway: FaultHandler = (_q, res, rx) =>
      rx.rpcMethod === 'server/discover'
        ? rpcError(res, 400, null, -32000, 'Bad Request: Server not initialized')
        : rpcError(res, 200, rx.rpcId, -32603, 'fetch failed');
    for (const revision of ['auto', '2025-11-25'] as const) {
      const { v } = await judgeFault(gateway, { revision });
      expectVerdict(
        v,
        'failed',
        'server_error',
        /^initialize: the server answered JSON-RPC error -32603 \(internal error\): "fetch failed"/,
      );
    }
  });

  it('a gateway answering -32603 to every request → failed/server_error in auto and in either pin', async () => {
    for (const revision of ['auto', '2025-11-25', '2026-07-28'] as const) {
      const { v } = await judgeFault((_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'fetch failed'), { revision });
      expectVerdict(v, 'failed', 'server_error', /-32603 \(internal error\): "fetch failed"/);
    }
  });
});

describe('a pinned revision is blamed only on evidence about revisions', () => {
  it('pinned 2025-11-25 on a one-session server already initialized (HTTP 400 "Server already initialized") → failed/http_status, not revision', async () => {
    const server = await startOneSessionServer();
    try {
      for (const revision of ['2025-11-25', 'auto'] as const) {
        const v = await judgeTimed(target(server.url, { ...LIMITS, revision }));
        expectVerdict(v, 'failed', 'http_status', /initialize: HTTP 400.*Server already initialized.*a server of one session only/);
      }
    } finally {
      await server.close();
    }
  });

  it('mixed-era replicas, the 2025 one first → failed/revision "two protocol eras", never "the canary speaks" what it offers', async () => {
    const legacy = await startMcpServer({ era: 'legacy', tools: [] });
    const modern = await startMcpServer({ era: 'modern', tools: [] });
    const lb = await roundRobin([legacy, modern]);
    try {
      const v = await judgeTimed(target(lb.url, LIMITS));
      expectVerdict(
        v,
        'failed',
        'revision',
        /discover was answered like a 2025 server .* then initialize like a 2026-07-28-only server .*two protocol eras behind one endpoint/,
      );
      expect(v.detail).not.toMatch(/the canary speaks/);
    } finally {
      await lb.close();
      await legacy.close();
      await modern.close();
    }
  });
});

describe('2026-07-28 multi-round-trip results, as the SDK client runs them', () => {
  it('input_required with only requestState → the same call again with it echoed byte for byte → healthy', async () => {
    const state = 'opaque/state+with=bytes~\u00e9';
    const server = await startModernSdkServer(({ requestState }) =>
      requestState === state ? { content: [{ type: 'text', text: 'EURUSD 1.08' }] } : { resultType: 'input_required', requestState: state },
    );
    try {
      const v = await judgeTimed(target(server.url, { ...LIMITS, tool: { name: 'get_rate', expectText: '1.08' } }));
      expectVerdict(v, 'healthy', null);
      expect(server.states).toEqual([undefined, state]);
    } finally {
      await server.close();
    }
  });

  it('input_required forever → failed/tool_error after the round cap, within the bound', async () => {
    const server = await startModernSdkServer(({ requestState }) => ({
      resultType: 'input_required',
      requestState: `${requestState ?? ''}.`,
    }));
    try {
      const v = await judgeTimed(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: 6_000 }));
      expect({ outcome: v.outcome, failure: v.failure }).toEqual({ outcome: 'failed', failure: 'tool_error' });
      expect(v.detail).toMatch(/still answered input_required after 10 rounds/);
      expect(v.durationMs).toBeLessThanOrEqual(6_600 + latenessOf(v));
    } finally {
      await server.close();
    }
  });

  it('input_required forever, slower than the budget → failed/timeout naming the rounds, within the bound', async () => {
    // 10 rounds of 400 ms each (and the SDK's 250 ms pacing) cannot fit the 3 s budget: the budget ends it.
    const server = await startModernSdkServer(async () => {
      await new Promise((r) => setTimeout(r, 400));
      return { resultType: 'input_required', requestState: 'again' };
    });
    try {
      const v = await judgeTimed(target(server.url, LIMITS));
      expectVerdict(v, 'failed', 'timeout', /budget ran out, after \d+ input_required round\(s\), each retried with requestState echoed/);
    } finally {
      await server.close();
    }
  });

  it('a real SDK server asking for input the client did not declare → failed/tool_error naming the capability (-32021)', async () => {
    const server = await startModernSdkServer(() => ({
      resultType: 'input_required',
      inputRequests: {
        ask: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } },
      },
    }));
    try {
      expectVerdict(await judgeTimed(target(server.url, LIMITS)), 'failed', 'tool_error', /requires the client capability elicitation/);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['elicitation/create', { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } }, 'user input \\(elicitation\\)'],
    ['sampling/createMessage', { messages: [], maxTokens: 10 }, 'a model completion \\(sampling\\)'],
    ['roots/list', {}, "the client's roots"],
  ])(
    'input_required asking %s regardless → failed/tool_error naming the request the canary cannot grant',
    async (method, params, words) => {
      const { v } = await judgeFault(
        onCall((_q, res, rx) => rpcResult(res, rx.rpcId, { resultType: 'input_required', inputRequests: { ask: { method, params } } })),
      );
      expectVerdict(
        v,
        'failed',
        'tool_error',
        new RegExp(`asked for ${words} — input_required: ${method.replace('/', '\\/')} \\("ask"\\)`),
      );
    },
  );

  it('an unknown resultType ("task") → failed/tool_error naming it, not "asked for user input"', async () => {
    const { v } = await judgeFault(
      onCall((_q, res, rx) => rpcResult(res, rx.rpcId, { resultType: 'task', task: { taskId: 't-1', status: 'working' } })),
    );
    expectVerdict(v, 'failed', 'tool_error', /resultType "task" \(a task: the work goes on and answers later\)/);
    expect(v.detail).not.toMatch(/user input/);
  });
});

describe('the read-only gate refuses a name listed more than once unless every listing is read-only', () => {
  const destructive = { ...readOnlyRateTool, annotations: { destructiveHint: true } };
  it.each([
    ['read-only first', [readOnlyRateTool, destructive]],
    ['destructive first', [destructive, readOnlyRateTool]],
  ])('get_rate twice, %s → inconclusive/unsafe_tool, never called', async (_order, tools) => {
    const { v, received } = await judgeFault(modernEndpoint({ tools, call: () => ({ content: [], structuredContent: { rate: 1.08 } }) }));
    expectVerdict(
      v,
      'inconclusive',
      'unsafe_tool',
      /names get_rate 2 times \(.*destructiveHint: true.*\).*only when every listing is annotated readOnlyHint: true/,
    );
    expect(received).not.toContain('tools/call');
  });

  it('get_rate twice, both read-only → called, healthy', async () => {
    const { v, received } = await judgeFault(
      modernEndpoint({ tools: [readOnlyRateTool, readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) }),
    );
    expectVerdict(v, 'healthy', null);
    expect(received).toContain('tools/call');
  });
});

describe('details say what on-call needs', () => {
  it("2025-11-25: a call that hangs on the server's own elicitation/create, which the canary refused → failed/timeout saying so", async () => {
    const { v, received } = await judgeFault(
      legacyEndpoint({
        call: (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' });
          const ask = {
            jsonrpc: '2.0',
            id: 'elicit-1',
            method: 'elicitation/create',
            params: { message: 'Which account?', requestedSchema: { type: 'object', properties: {} } },
          };
          res.write(`event: message\ndata: ${JSON.stringify(ask)}\n\n`);
          // …and waits for an answer it will not get.
        },
      }),
    );
    expectVerdict(
      v,
      'failed',
      'timeout',
      /the server had asked the client for elicitation\/create on this call's stream, which the canary refused/,
    );
    // The client's refusal went back to the server (a POST of a JSON-RPC error, no method).
    expect(received.slice(received.indexOf('tools/call') + 1)).toContain('POST');
  });

  it('503 with Retry-After (maintenance) → failed/http_status, Retry-After kept as for 429', async () => {
    const { v } = await judgeFault(
      (_q, res) => void res.writeHead(503, { 'retry-after': '3600', 'content-type': 'text/plain' }).end('down for maintenance'),
    );
    expectVerdict(v, 'failed', 'http_status', /HTTP 503, text\/plain: "down for maintenance" \(Retry-After: 3600\)/);
  });

  it('a 401 with a long challenge → failed/auth, its resource_metadata URL whole', async () => {
    const meta = `https://auth.example.com/.well-known/oauth-protected-resource/${'tenant/'.repeat(20)}mcp`;
    const { v } = await judgeFault(
      (_q, res) =>
        void res
          .writeHead(401, { 'www-authenticate': `Bearer realm="mcp", scope="${'read '.repeat(40).trim()}", resource_metadata="${meta}"` })
          .end(),
    );
    expectVerdict(v, 'failed', 'auth', new RegExp(`resource_metadata: ${meta.replaceAll('.', '\\.').replaceAll('/', '\\/')}`));
  });

  it.each([
    ['Cyrillic а', 'get_r\u0430te', 'get_r\\\\u0430te'],
    ['Greek α', 'get_r\u03b1te', 'get_r\\\\u03b1te'],
    ['fullwidth ｅ', 'get_rat\uff45', 'get_rat\\\\uff45'],
    ['a zero-width space', 'get_\u200brate', 'get_\\\\u200brate'],
  ])('a look-alike tool name (%s) → failed/tool_missing, the code point shown', async (_script, listed, shown) => {
    const { v } = await judgeFault(modernEndpoint({ tools: [{ ...readOnlyRateTool, name: listed }] }));
    expectVerdict(
      v,
      'failed',
      'tool_missing',
      new RegExp(`no tool named "get_rate" among 1 \\(${shown}\\); names with characters outside ASCII`),
    );
  });

  it("an assertion detail carries the server's own message past the first 100 characters", async () => {
    const text = `${'Quote service notice: '.repeat(6)}upstream answered HTTP 401 (key revoked)`;
    const { v } = await judgeFault(
      onCall((_q, res, rx) =>
        rpcResult(res, rx.rpcId, { resultType: 'complete', content: [{ type: 'text', text }], structuredContent: { rate: 1.08 } }),
      ),
      {
        tool: { name: 'get_rate', expectText: 'EURUSD' },
      },
    );
    expectVerdict(v, 'failed', 'assertion', /upstream answered HTTP 401 \(key revoked\)/);
  });
});

describe('expectJson compares integers beyond 2^53 exactly (--expect-json, as typed)', () => {
  const fromFlags = (url: string, expectation: string) =>
    (
      parseCommand([
        'check',
        url,
        '--tool',
        'get_rate',
        '--expect-json',
        expectation,
        '--timeout-ms',
        String(TIMEOUT_MS),
        '--budget-ms',
        String(BUDGET_MS),
      ]) as CheckCommand
    ).targets[0]!;
  const answering = (id: string, era: 'modern' | 'legacy'): FaultHandler =>
    onCall((_q, res, rx) => {
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(rx.rpcId)},"result":{"resultType":"complete","content":[],"structuredContent":{"rate":1.08,"id":${id}}}}`;
      if (era === 'modern') return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }).end(`event: message\ndata: ${body}\n\n`);
    }, era);

  it.each(['modern', 'legacy'] as const)(
    '%s: id=9007199254740993 against 9007199254740992 → failed/assertion; against itself → healthy',
    async (era) => {
      const off = await startFaultServer(answering('9007199254740992', era));
      const same = await startFaultServer(answering('9007199254740993', era));
      try {
        expectVerdict(
          await judgeTimed(fromFlags(off.url, 'id=9007199254740993')),
          'failed',
          'assertion',
          /id == 9007199254740993, got 9007199254740992/,
        );
        expectVerdict(await judgeTimed(fromFlags(same.url, 'id=9007199254740993')), 'healthy', null);
        expectVerdict(await judgeTimed(fromFlags(same.url, 'id=9007199254740992')), 'failed', 'assertion', /got 9007199254740993/);
      } finally {
        await off.close();
        await same.close();
      }
    },
  );

  it.each([
    ['9.007199254740993e15', 'id=9007199254740993', 'healthy'],
    ['90071992547409930E-1', 'id=9007199254740993', 'healthy'],
    ['9007199254740993.000', 'id=9007199254740993', 'healthy'],
    ['9007199254740992', 'id=9.007199254740993e15', 'failed'],
    ['-9.007199254740993e15', 'id=-9007199254740992', 'failed'],
  ] as const)('an integer beyond 2^53 in exponent or decimal form (%s, %s) is the integer it names → %s', async (id, flag, outcome) => {
    const server = await startFaultServer(answering(id, 'modern'));
    try {
      const v = await judgeTimed(fromFlags(server.url, flag));
      expectVerdict(v, outcome, outcome === 'healthy' ? null : 'assertion');
    } finally {
      await server.close();
    }
  });
});

/** A round-robin proxy over `upstreams`, the first request to the first: replicas behind one load balancer. */
async function roundRobin(upstreams: { url: string }[]) {
  let turn = 0;
  return startFaultServer(async (req, res, rx) => {
    const upstream = upstreams[turn++ % upstreams.length]!.url;
    const headers: Record<string, string> = {};
    for (const [k, val] of Object.entries(req.headers))
      if (typeof val === 'string' && k !== 'host' && k !== 'content-length') headers[k] = val;
    const r = await fetch(upstream, { method: rx.method, headers, ...(rx.body ? { body: rx.body } : {}) });
    res.writeHead(r.status, Object.fromEntries(r.headers));
    res.end(Buffer.from(await r.arrayBuffer()));
  });
}
