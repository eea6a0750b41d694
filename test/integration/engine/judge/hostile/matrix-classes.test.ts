/**
 * The hostile matrix, round 4: the class names what broke on every kind of answer. Transient statuses
 * on every step (never era evidence, retried within the budget as `Retry-After` says), and JSON-RPC
 * errors on tools/call classed by their meaning. Real sockets on 127.0.0.1; every row within the run
 * budget + 10 % (harness.ts). The rows are the fourth table of README.md.
 */
import { describe, expect, it } from 'vitest';
import { modernEndpoint, readOnlyRateTool, rpcError, type FaultHandler } from '../../../../helpers/faults.ts';
import { expectVerdict, judgeFault, legacyEndpoint } from '../../../../helpers/hostile/harness.ts';
import { judge } from '../../../../../functions/engine/judge/judge.ts';
import { startFaultServer } from '../../../../helpers/faults.ts';
import { target } from '../../../../helpers/probe.ts';

const rate = { content: [{ type: 'text', text: 'rate 1.08' }], structuredContent: { rate: 1.08 } };

/** A 2026-07-28-only server (initialize → -32601) whose `on` step answers with `answer`. */
function modernOnly(on: string, answer: FaultHandler): FaultHandler {
  const normal = modernEndpoint({ tools: [readOnlyRateTool], call: () => rate });
  return (req, res, rx) => {
    if (rx.rpcMethod === on) return answer(req, res, rx);
    if (rx.rpcMethod === 'initialize') return rpcError(res, 400, rx.rpcId, -32601, 'Method not found');
    return normal(req, res, rx);
  };
}

/** A 2025-11-25-only server whose `on` step answers with `answer`. */
function legacyOnly(on: string, answer: FaultHandler): FaultHandler {
  const normal = legacyEndpoint({
    call: (_q, res, rx) =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: rx.rpcId, result: rate })),
  });
  return (req, res, rx) => (rx.rpcMethod === on ? answer(req, res, rx) : normal(req, res, rx));
}

const TRANSIENT = [408, 425, 429, 502, 503, 504];

describe('a transient status is judged as what it is, before any era reasoning', () => {
  for (const retryAfter of [null, '7']) {
    it.each(TRANSIENT)(
      `%i${retryAfter ? ' with Retry-After' : ''} to discover on a 2026-07-28-only server → failed/http_status naming it; no initialize, never revision`,
      async (status) => {
        const { v, received } = await judgeFault(
          modernOnly(
            'server/discover',
            (_q, res) => void res.writeHead(status, retryAfter ? { 'retry-after': retryAfter } : {}).end('not now'),
          ),
        );
        expectVerdict(
          v,
          'failed',
          'http_status',
          new RegExp(`^discover: HTTP ${status}\\b.*${retryAfter ? 'Retry-After: 7' : ''}.*transient`),
        );
        expect(received).toEqual(['server/discover']);
      },
    );
  }

  it.each(TRANSIENT)('%i to discover on a 2025-only server → failed/http_status, not a healthy 2025 session', async (status) => {
    const { v, received } = await judgeFault(legacyOnly('server/discover', (_q, res) => void res.writeHead(status).end()));
    expectVerdict(v, 'failed', 'http_status', new RegExp(`^discover: HTTP ${status}`));
    expect(received).toEqual(['server/discover']);
  });

  it.each(TRANSIENT)('%i to initialize on a 2025-only server → failed/http_status naming it', async (status) => {
    const { v } = await judgeFault(legacyOnly('initialize', (_q, res) => void res.writeHead(status, { 'retry-after': '9' }).end()));
    expectVerdict(v, 'failed', 'http_status', new RegExp(`^initialize: HTTP ${status}.*Retry-After: 9`));
  });

  for (const step of ['tools/list', 'tools/call']) {
    it.each(TRANSIENT)(`%i to ${step}, on both eras → failed/http_status naming it`, async (status) => {
      for (const server of [modernOnly, legacyOnly]) {
        const { v } = await judgeFault(server(step, (_q, res, rx) => rpcError(res, status, rx.rpcId, -32603, 'busy')));
        expectVerdict(v, 'failed', 'http_status', new RegExp(`^${step}: HTTP ${status}.*"busy".*transient`));
      }
    });
  }

  it('a 409 with Retry-After is transient too: the server said when to come back', async () => {
    const { v, received } = await judgeFault(
      modernOnly('server/discover', (_q, res) => void res.writeHead(409, { 'retry-after': '3' }).end()),
    );
    expectVerdict(v, 'failed', 'http_status', /^discover: HTTP 409 \(Retry-After: 3\)/);
    expect(received).toEqual(['server/discover']);
  });
});

describe('--retries honours a transient answer and its Retry-After, within the budget', () => {
  /** A server whose `on` step answers `status` (with `retryAfter`) the first time only; the times of each `on` request. */
  async function onceThenFine(on: string, status: number, retryAfter: string | null, over: Record<string, unknown>) {
    let first = true;
    const times: number[] = [];
    const normal = modernOnly('none', () => {});
    const server = await startFaultServer((req, res, rx) => {
      if (rx.rpcMethod === on) times.push(Date.now());
      if (rx.rpcMethod === on && first) {
        first = false;
        return void res.writeHead(status, retryAfter ? { 'retry-after': retryAfter } : {}).end();
      }
      return normal(req, res, rx);
    });
    try {
      return { v: await judge(target(server.url, { timeoutMs: 600, budgetMs: 4_000, ...over })), times };
    } finally {
      await server.close();
    }
  }

  it.each([
    ['server/discover', 429],
    ['tools/list', 503],
    ['tools/call', 429],
  ] as const)(
    '%s → %i with Retry-After: 1, then fine → degraded after one retry, waiting the second the server asked',
    async (on, status) => {
      const { v, times } = await onceThenFine(on, status, '1', { retries: 1 });
      expect(v).toMatchObject({ outcome: 'degraded', failure: null });
      expect(v.detail).toMatch(new RegExp(`healthy after 1 retry; the first attempt failed: .*HTTP ${status} \\(Retry-After: 1\\)`));
      expect(times).toHaveLength(2);
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    },
  );

  it.each([408, 425])('%i without Retry-After, then fine → degraded after one retry on the usual backoff', async (status) => {
    const { v, times } = await onceThenFine('tools/list', status, null, { retries: 1 });
    expect(v).toMatchObject({ outcome: 'degraded', failure: null });
    expect(times).toHaveLength(2);
  });

  it('a Retry-After beyond the budget → not retried, and the detail says why', async () => {
    const { v, times } = await onceThenFine('server/discover', 429, '120', { retries: 2 });
    expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status' });
    expect(v.detail).toMatch(/Retry-After: 120.*not retried: the Retry-After wait does not fit the run's budget/);
    expect(times).toHaveLength(1);
  });

  it('--retries 0 → no retry, whatever the status', async () => {
    const { v, times } = await onceThenFine('tools/call', 503, '1', { retries: 0 });
    expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status' });
    expect(times).toHaveLength(1);
  });
});

describe('the era never flaps on a transient answer', () => {
  it('a dual-era server that answers one run with 408 to discover: 2026-07-28, then http_status (not 2025-11-25), then 2026-07-28', async () => {
    let run = 0;
    const modern = modernEndpoint({ tools: [readOnlyRateTool], call: () => rate });
    const legacy = legacyOnly('none', () => {});
    const server = await startFaultServer((req, res, rx) => {
      if (rx.rpcMethod === 'server/discover') {
        run++;
        return run === 2 ? void res.writeHead(408).end() : modern(req, res, rx);
      }
      return ['initialize', 'notifications/initialized'].includes(rx.rpcMethod ?? '') || rx.method === 'DELETE'
        ? legacy(req, res, rx)
        : modern(req, res, rx);
    });
    try {
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const v = await judge(target(server.url, { timeoutMs: 600, budgetMs: 3_000 }));
        seen.push(`${v.outcome}/${v.failure ?? v.revision}`);
      }
      expect(seen).toEqual(['healthy/2026-07-28', 'failed/http_status', 'healthy/2026-07-28']);
      expect(server.received.filter((r) => r.rpcMethod === 'initialize')).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('a JSON-RPC error on tools/call is classed by its meaning; only the tool’s own execution is tool_error', () => {
  const rows = [
    [-32700, 200, 'protocol', /-32700 \(parse error\).*did not arrive as the canary sent it.*nothing ran/],
    [-32600, 200, 'protocol', /-32600 \(invalid request\).*nothing ran/],
    [-32020, 400, 'protocol', /-32020 \(header mismatch\).*\(in an HTTP 400 answer\).*Mcp-Method \/ Mcp-Name/],
    [-32601, 200, 'server_error', /-32601 \(method not found\).*does not serve tools\/call/],
    [-32000, 200, 'server_error', /-32000 \(server error\).*server-defined error/],
    [-32099, 500, 'server_error', /-32099 \(server error\).*\(in an HTTP 500 answer\)/],
    [-32603, 200, 'tool_error', /the tool answered JSON-RPC error -32603 \(internal error\)/],
    [-32603, 500, 'tool_error', /the tool answered JSON-RPC error -32603 .*\(in an HTTP 500 answer\)/],
    [42, 200, 'tool_error', /the tool answered JSON-RPC error 42: "upstream said no"/],
  ] as const;
  for (const [name, server] of [
    ['2026-07-28', modernOnly],
    ['2025-11-25', legacyOnly],
  ] as const) {
    it.each(rows)(`${name}: %i in an HTTP %i → failed/%s, the server's words kept`, async (code, status, failure, detail) => {
      const { v } = await judgeFault(server('tools/call', (_q, res, rx) => rpcError(res, status, rx.rpcId, code, 'upstream said no')));
      expectVerdict(v, 'failed', failure, detail);
      expect(v.detail).toContain('"upstream said no"');
    });
  }

  const schema = { type: 'object', properties: { pair: { type: 'string' }, date: { type: 'string' } }, required: ['pair', 'date'] };
  const withSchema = (inputSchema: unknown): FaultHandler => {
    const normal = modernEndpoint({ tools: [{ ...readOnlyRateTool, inputSchema }] });
    return (req, res, rx) =>
      rx.rpcMethod === 'tools/call' ? rpcError(res, 200, rx.rpcId, -32602, 'Invalid arguments') : normal(req, res, rx);
  };

  it.each([
    ['a required argument the canary does not send', schema, { pair: 'EURUSD' }, /must have required property 'date'/],
    ['an argument of the wrong type', schema, { pair: 7, date: 'today' }, /\/pair must be string/],
    [
      'an argument the schema no longer allows',
      { type: 'object', properties: {}, additionalProperties: false },
      { pair: 'EURUSD' },
      /additional properties/,
    ],
  ])(
    '-32602 with %s (against the listed inputSchema) → inconclusive: the canary’s arguments, named',
    async (_, inputSchema, args, where) => {
      const { v } = await judgeFault(withSchema(inputSchema), { tool: { name: 'get_rate', arguments: args } });
      expectVerdict(v, 'inconclusive', null, /do not fit the tool's inputSchema as tools\/list gives it now.*update tool\.arguments/);
      expect(v.detail).toMatch(where);
    },
  );

  it('-32602 to arguments that fit the listed inputSchema → failed/server_error: its validation and its listing disagree', async () => {
    const { v } = await judgeFault(withSchema(schema), { tool: { name: 'get_rate', arguments: { pair: 'EURUSD', date: 'today' } } });
    expectVerdict(v, 'failed', 'server_error', /though they fit the tool's inputSchema.*validation and its listing disagree/);
  });
});

describe('a list is read entry by entry: a bad entry is named, and judged only where it matters', () => {
  const canary = { ...readOnlyRateTool };
  const brokenOthers = [
    [
      'an inputSchema that is not an object schema',
      { name: 'list_pairs', inputSchema: { type: 'string' } },
      /list_pairs \(inputSchema\.type: /,
    ],
    ['no inputSchema', { name: 'list_pairs' }, /list_pairs \(inputSchema: /],
    [
      'an outputSchema that is not an object schema',
      { name: 'list_pairs', inputSchema: { type: 'object' }, outputSchema: 'none' },
      /list_pairs \(outputSchema: /,
    ],
    ['no name', { inputSchema: { type: 'object' } }, /entry #1 \(name: /],
    [
      'annotations of the wrong shape',
      { name: 'list_pairs', inputSchema: { type: 'object' }, annotations: 'read-only' },
      /list_pairs \(annotations: /,
    ],
  ] as const;

  for (const [era, server] of [
    ['2026-07-28', (tools: unknown[]) => modernEndpoint({ tools, call: () => rate })],
    ['2025-11-25', (tools: unknown[]) => legacyEndpoint({ tools })],
  ] as const) {
    it.each(brokenOthers)(`${era}: another tool with %s → healthy, the entry named in the tools/list line`, async (_, entry, named) => {
      const { v, received } = await judgeFault(server([canary, entry]));
      expectVerdict(v, 'healthy', null);
      const line = v.probes.find((p) => p.name === 'tools/list');
      expect(line?.detail).toMatch(/1 tool\(s\), including get_rate; 1 entry unusable and left out: /);
      expect(line?.detail).toMatch(named);
      expect(received).toContain('tools/call');
    });
  }

  it.each([
    ['an inputSchema of type string', { ...canary, inputSchema: { type: 'string' } }, /inputSchema\.type: /],
    ['no inputSchema', { name: 'get_rate', annotations: { readOnlyHint: true } }, /inputSchema: /],
    ['an outputSchema that is not an object', { ...canary, outputSchema: 'none' }, /outputSchema: /],
    ['annotations of the wrong shape', { ...canary, annotations: { readOnlyHint: 'yes' } }, /annotations\.readOnlyHint: /],
  ])('the canary tool’s own entry with %s → failed/protocol naming the tool and the path; never called', async (_, entry, path) => {
    const { v, received } = await judgeFault(
      modernEndpoint({ tools: [{ name: 'list_pairs', inputSchema: { type: 'object' } }, entry], call: () => rate }),
    );
    expectVerdict(v, 'failed', 'protocol', /^tools\/list: the canary tool get_rate is listed with a definition that breaks the MCP schema/);
    expect(v.detail).toMatch(path);
    expect(received).not.toContain('tools/call');
  });

  it('2025-11-25: another tool whose outputSchema is not of type object → healthy, named (2026-07-28 allows it)', async () => {
    const other = { name: 'list_pairs', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } };
    const { v } = await judgeFault(legacyEndpoint({ tools: [canary, other] }));
    expectVerdict(v, 'healthy', null);
    expect(v.probes.find((p) => p.name === 'tools/list')?.detail).toMatch(
      /list_pairs \(outputSchema\.type: expected "object" on 2025-11-25\)/,
    );
  });

  it('a bad entry on the second page, the canary tool on the first → healthy; both pages read', async () => {
    const pages: Record<string, unknown> = {
      '': { tools: [canary], nextCursor: 'p2' },
      p2: { tools: [{ name: 'broken', inputSchema: { type: 'string' } }] },
    };
    const normal = modernEndpoint({ tools: [], call: () => rate });
    const { v, received } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod !== 'tools/list') return normal(req, res, rx);
      const cursor = (JSON.parse(rx.body) as { params?: { cursor?: string } }).params?.cursor ?? '';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: rx.rpcId,
          result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private', ...(pages[cursor] as object) },
        }),
      );
    });
    expectVerdict(v, 'healthy', null);
    expect(v.probes.find((p) => p.name === 'tools/list')?.detail).toMatch(/1 entry unusable and left out: broken \(inputSchema\.type/);
    expect(received.filter((m) => m === 'tools/list').length).toBeGreaterThanOrEqual(2);
  });

  it('the canary tool missing, another entry broken → failed/tool_missing, the broken entry named beside the list', async () => {
    const { v } = await judgeFault(
      modernEndpoint({
        tools: [
          { name: 'list_pairs', inputSchema: { type: 'object' } },
          { name: 'x', inputSchema: 3 },
        ],
      }),
    );
    expectVerdict(
      v,
      'failed',
      'tool_missing',
      /no tool named "get_rate" among 1 \(list_pairs\); 1 entry unusable and left out: x \(inputSchema: /,
    );
  });

  it('a page whose frame is broken (tools is not an array) → failed/protocol as before', async () => {
    const normal = modernEndpoint({ tools: [] });
    const { v } = await judgeFault((req, res, rx) =>
      rx.rpcMethod === 'tools/list'
        ? void res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: rx.rpcId,
              result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: 'none' },
            }),
          )
        : normal(req, res, rx),
    );
    expectVerdict(v, 'failed', 'protocol', /tools\/list: answer does not match the MCP schema/);
  });
});

describe("redirects: each hop's Location named, hops counted right", () => {
  const ok = modernEndpoint({ tools: [readOnlyRateTool], call: () => rate });
  const at =
    (paths: Record<string, [number, string?]>): FaultHandler =>
    (req, res, rx) => {
      const hop = paths[req.url ?? ''];
      if (!hop) return ok(req, res, rx);
      res.writeHead(hop[0], hop[1] === undefined ? {} : { location: hop[1] }).end();
    };

  for (const revision of ['auto', '2025-11-25', '2026-07-28'] as const) {
    it.each([301, 302, 303])(
      `${revision}: a single %i (a trailing slash on POST) → failed/http_status naming the Location, not a loop`,
      async (status) => {
        const { v } = await judgeFault(at({ '/mcp': [status, '/mcp/'] }), { revision });
        expectVerdict(
          v,
          'failed',
          'http_status',
          new RegExp(
            `HTTP ${status} redirect to http://127\\.0\\.0\\.1:\\d+/mcp/ not followed: a ${status} would turn the POST into a GET.*configure http://127\\.0\\.0\\.1:\\d+/mcp/ as the URL`,
          ),
        );
        expect(v.detail).not.toMatch(/loop|redirects:/);
      },
    );
  }

  it('auto: the same redirect to discover and initialize is said once', async () => {
    const { v } = await judgeFault(at({ '/mcp': [301, '/mcp/'] }));
    expect(v.detail).toMatch(/; the 2025-11-25 initialize met the same$/);
  });

  it.each([307, 308])('a single %i (a trailing slash) is followed → healthy', async (status) => {
    const { v, received } = await judgeFault(at({ '/mcp': [status, '/mcp/'] }));
    expectVerdict(v, 'healthy', null);
    expect(received).toContain('tools/call');
  });

  it('308 back and forth → a redirect loop, 6 redirects counted, each hop named', async () => {
    const { v } = await judgeFault(at({ '/mcp': [308, '/mcp/'], '/mcp/': [308, '/mcp'] }), { revision: '2026-07-28' });
    expectVerdict(
      v,
      'failed',
      'http_status',
      /^discover: 6 redirects within the endpoint's own origin never reached an answer \(a redirect loop\): http:\/\/127\.0\.0\.1:\d+\/mcp → http:\/\/127\.0\.0\.1:\d+\/mcp\/ → /,
    );
  });

  it('307 to a new path every time → too many redirects, not a loop', async () => {
    const hops = Object.fromEntries(
      ['/mcp', '/1', '/2', '/3', '/4', '/5', '/6'].map((p, i) => [p, [307, `/${i + 1}`] as [number, string]]),
    );
    const { v } = await judgeFault(at(hops), { revision: '2026-07-28' });
    expectVerdict(
      v,
      'failed',
      'http_status',
      /6 redirects within the endpoint's own origin never reached an answer \(too many redirects\): .*\/mcp → .*\/1 → .*\/2 → … → .*\/5 → .*\/6/,
    );
  });

  it('two 308s, then a 301 → the chain named: 3 redirects, the last Location to configure', async () => {
    const { v } = await judgeFault(at({ '/mcp': [308, '/a'], '/a': [308, '/b'], '/b': [301, '/c'] }), { revision: '2026-07-28' });
    expectVerdict(
      v,
      'failed',
      'http_status',
      /HTTP 301 redirect to http:\/\/127\.0\.0\.1:\d+\/c not followed.*; 3 redirects: .*\/mcp → .*\/a → .*\/b → .*\/c$/,
    );
  });

  it('a redirect to another origin with a query → its Location named with the query values masked; nothing sent there', async () => {
    const { v } = await judgeFault(at({ '/mcp': [302, 'http://localhost:1/mcp?token=tok-9f2&region=eu'] }), { revision: '2026-07-28' });
    expectVerdict(
      v,
      'failed',
      'http_status',
      /HTTP 302 redirect to http:\/\/localhost:1\/mcp\?token=\*\*\*&region=\*\*\* not followed \(another origin/,
    );
    expect(JSON.stringify(v)).not.toContain('tok-9f2');
  });

  it('a 3xx without a Location → failed/http_status saying so', async () => {
    const { v } = await judgeFault(at({ '/mcp': [308] }), { revision: '2026-07-28' });
    expectVerdict(v, 'failed', 'http_status', /HTTP 308 redirect without a Location/);
  });
});

describe('event streams fail at once when they end or stop making sense, naming what came', () => {
  const LONG = { timeoutMs: 2_500 };
  /** A server whose `on` step answers an event stream of `events` (the answer's id filled in), ended or left open. */
  const streaming = (
    on: string,
    events: (id: unknown) => string[],
    end: boolean,
    base: (answer: FaultHandler) => FaultHandler,
  ): FaultHandler =>
    base((_q, res, rx) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const body = events(rx.rpcId).join('');
      if (end) res.end(body);
      else res.write(body);
    });
  const answer = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
  const ping = 'event: ping\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"ping"}}\n\n';
  const discovered = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };

  it.each(['result', 'response'])(
    'discover answered in an event named "%s", stream left open → failed/protocol at once, naming it',
    async (name) => {
      const { v } = await judgeFault(
        streaming(
          'server/discover',
          (id) => [`event: ${name}\n${answer(id, discovered)}`],
          false,
          (a) => modernOnly('server/discover', a),
        ),
        { ...LONG, revision: '2026-07-28' },
      );
      expectVerdict(v, 'failed', 'protocol', new RegExp(`^discover: the answer came in an event named "${name}", which clients skip`));
      expect(v.durationMs).toBeLessThan(LONG.timeoutMs);
    },
  );

  for (const [era, server] of [
    ['2026-07-28', modernOnly],
    ['2025-11-25', legacyOnly],
  ] as const) {
    it(`${era}: tools/call answered in an event named "result" → failed/protocol at once`, async () => {
      const { v } = await judgeFault(
        streaming(
          'tools/call',
          (id) => [`event: result\n${answer(id, { ...rate, resultType: 'complete' })}`],
          false,
          (a) => server('tools/call', a),
        ),
        LONG,
      );
      expectVerdict(v, 'failed', 'protocol', /^tools\/call: the answer came in an event named "result"/);
      expect(v.durationMs).toBeLessThan(LONG.timeoutMs);
    });

    it.each([
      [
        'an event named "error" that is not JSON',
        'event: error\ndata: upstream died\n\n',
        /an event named "error" that is not JSON \("upstream died"\)/,
      ],
      ['an unnamed event that is not JSON', 'data: <html>oops</html>\n\n', /an event that is not JSON \("<html>oops<\/html>"\)/],
    ])(`${era}: tools/call → %s, stream left open → failed/protocol at once`, async (_, event, words) => {
      const { v } = await judgeFault(
        streaming(
          'tools/call',
          () => [event],
          false,
          (a) => server('tools/call', a),
        ),
        LONG,
      );
      expectVerdict(v, 'failed', 'protocol', /^tools\/call: the event stream stopped making sense/);
      expect(v.detail).toMatch(words);
      expect(v.durationMs).toBeLessThan(LONG.timeoutMs);
    });

    it(`${era}: tools/call → three "ping" events, then the end → failed/protocol at once, the names counted`, async () => {
      const { v } = await judgeFault(
        streaming(
          'tools/call',
          () => [ping, ping, ping],
          true,
          (a) => server('tools/call', a),
        ),
        LONG,
      );
      expectVerdict(v, 'failed', 'protocol', /event stream ended without an answer \(3 event\(s\), 0 not JSON, named "ping" ×3\)/);
      expect(v.durationMs).toBeLessThan(LONG.timeoutMs);
    });

    it(`${era}: tools/call → "ping" events, then the answer as a message event → healthy`, async () => {
      const { v } = await judgeFault(
        streaming(
          'tools/call',
          (id) => [ping, ping, `event: message\n${answer(id, { ...rate, resultType: 'complete' })}`],
          true,
          (a) => server('tools/call', a),
        ),
        LONG,
      );
      expectVerdict(v, 'healthy', null);
    });
  }
});
