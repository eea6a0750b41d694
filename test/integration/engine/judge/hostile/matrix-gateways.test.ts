/**
 * The hostile-endpoint matrix (gateways): an aggregating gateway that misbehaves toward one backend —
 * drops its tools, lists one twice or under a look-alike prefix, lists it without readOnlyHint, answers
 * its call with an error, a 502 or nothing, loses its session mid-way, echoes a secret — and a gateway
 * whose own tools/list fails. Hand-written gateways on 127.0.0.1 (2026-07-28, and 2025-11-25 for
 * sessions); each row asserts the gateway's verdict and every backend's (`judgeAll`): outcome, class,
 * and the words that tell on-call which backend and why. Every row within the run budget + 10 %
 * (harness.ts). The rows are in README.md too.
 */
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../../../functions/base/common/verdict.ts';
import type { TargetInput } from '../../../../../functions/base/config/schema/target.ts';
import { judgeRun } from '../../../../../functions/engine/judge/judge.ts';
import { modernEndpoint, rpcError, rpcResult, startFaultServer, type FaultHandler } from '../../../../helpers/faults.ts';
import { BOUND_MS, BUDGET_MS, TIMEOUT_MS } from '../../../../helpers/hostile/harness.ts';
import { withLateness } from '../../../../helpers/lateness.ts';
import { SECRET, target } from '../../../../helpers/probe.ts';

/** A backend's read-only status tool as the gateway lists it, under `name` (prefix included). */
const listed = (name: string, annotations: Record<string, unknown> = { readOnlyHint: true }) => ({
  name,
  inputSchema: { type: 'object' },
  annotations,
});
/** What a healthy backend answers through the gateway: its own name. */
const answer = (tool: string) => ({ content: [{ type: 'text', text: `${tool} ok` }], structuredContent: { tool, ok: true } });

const THREE = ['github___get_status', 'docs___get_status', 'tickets___get_status'];
const BACKENDS: TargetInput['backends'] = [
  { name: 'github', tool: { name: 'get_status' } },
  { name: 'docs', tool: { name: 'get_status' } },
  { name: 'tickets', tool: { name: 'get_status' } },
];

const calledName = (body: string): string => (JSON.parse(body) as { params: { name: string } }).params.name;

/**
 * A 2026-07-28 gateway listing `tools`; each call answered as its backend would (its name), or by
 * `on[name]` for the calls the row breaks.
 */
function gateway(tools: readonly unknown[], on: Record<string, FaultHandler> = {}, onOther?: FaultHandler): FaultHandler {
  const normal = modernEndpoint({ tools: [...tools], call: (p) => answer(p.name), ...(onOther ? { onOther } : {}) });
  return (req, res, rx) => {
    const own = rx.rpcMethod === 'tools/call' ? on[calledName(rx.body)] : undefined;
    return own ? own(req, res, rx) : normal(req, res, rx);
  };
}

interface Run {
  readonly gw: Verdict;
  readonly v: Record<string, Verdict>;
  readonly all: readonly Verdict[];
  /** The tool names of the calls the gateway received, in order. */
  readonly calls: readonly string[];
  readonly received: readonly string[];
  readonly redacted: (text: string) => string;
}

/** One run of the gateway target `gw` against `handler`, with the matrix's timeout and budget; the bound checked. */
async function judgeGateway(handler: FaultHandler, over: Partial<TargetInput> = {}): Promise<Run> {
  const server = await startFaultServer(handler);
  try {
    const t = target(server.url, { name: 'gw', tool: undefined, timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, backends: BACKENDS, ...over });
    const started = performance.now();
    const { value: run, lateMs } = await withLateness(() => judgeRun(t));
    const tookMs = performance.now() - started;
    const all = [run.verdict, ...run.backends];
    // The whole run, every backend judged, within the budget + 10 %.
    expect(tookMs).toBeLessThanOrEqual(BOUND_MS + lateMs);
    for (const v of all) expect(v.durationMs).toBeLessThanOrEqual(BOUND_MS + lateMs);
    return {
      gw: run.verdict,
      v: Object.fromEntries(all.map((v) => [v.target, v])),
      all,
      calls: server.received.filter((r) => r.rpcMethod === 'tools/call').map((r) => calledName(r.body)),
      received: server.received.map((r) => r.rpcMethod ?? r.method),
      redacted: (text) => run.redactor.text(text),
    };
  } finally {
    await server.close();
  }
}

function expectBackend(v: Verdict | undefined, outcome: string, failure: string | null, detail?: RegExp): void {
  expect(v, 'the backend has a verdict').toBeDefined();
  expect({ outcome: v!.outcome, failure: v!.failure, gateway: v!.gateway }).toEqual({ outcome, failure, gateway: 'gw' });
  if (detail) expect(v!.detail).toMatch(detail);
}

/** The gateway's own verdict: healthy, whatever its backends did. */
function expectGatewayHealthy(r: Run): void {
  expect({ outcome: r.gw.outcome, failure: r.gw.failure }).toEqual({ outcome: 'healthy', failure: null });
  expect(r.gw.detail).toMatch(/tool\(s\) listed; 3 backend\(s\) judged on their own$/);
}

describe("the gateway's list: one backend's tools dropped, doubled, renamed or unsafe", () => {
  it("drops docs's tools from its list → gw/docs failed/tool_missing naming docs___get_status and what is listed; the others healthy", async () => {
    const r = await judgeGateway(gateway(['github___get_status', 'tickets___get_status'].map((n) => listed(n))));
    expectGatewayHealthy(r);
    expectBackend(
      r.v['gw/docs'],
      'failed',
      'tool_missing',
      /^tools\/list: no tool named "docs___get_status" among 2 \(github___get_status, tickets___get_status\)$/,
    );
    expectBackend(r.v['gw/github'], 'healthy', null, /github___get_status answered as expected through the gateway/);
    expectBackend(r.v['gw/tickets'], 'healthy', null);
    expect(r.calls).toEqual(['github___get_status', 'tickets___get_status']);
  });

  it.each([
    ['destructive first', [{ destructiveHint: true }, { readOnlyHint: true }]],
    ['destructive second', [{ readOnlyHint: true }, { destructiveHint: true }]],
  ])(
    "lists docs's tool twice, one listing destructive (%s) → gw/docs inconclusive/unsafe_tool, both listings named, never called",
    async (_, twice) => {
      const tools = [listed('github___get_status'), ...twice.map((a) => listed('docs___get_status', a)), listed('tickets___get_status')];
      const r = await judgeGateway(gateway(tools));
      expectGatewayHealthy(r);
      expectBackend(
        r.v['gw/docs'],
        'inconclusive',
        'unsafe_tool',
        /^tools\/call: not called — tools\/list names docs___get_status 2 times \(/,
      );
      expect(r.v['gw/docs']!.detail).toContain('destructiveHint: true');
      expectBackend(r.v['gw/github'], 'healthy', null);
      expectBackend(r.v['gw/tickets'], 'healthy', null);
      expect(r.calls).toEqual(['github___get_status', 'tickets___get_status']);
    },
  );

  it("lists docs's tool twice, both read-only → gw/docs healthy, called once", async () => {
    const r = await judgeGateway(gateway([...THREE, 'docs___get_status'].map((n) => listed(n))));
    expectGatewayHealthy(r);
    for (const b of ['github', 'docs', 'tickets']) expectBackend(r.v[`gw/${b}`], 'healthy', null);
    expect(r.calls).toEqual(THREE);
  });

  it.each([
    ['a Cyrillic і in the prefix', 'g\u0456thub___get_status', /among 3 \(g\\u0456thub___get_status, .*shown as code points$/],
    ['a fullwidth ｇ in the prefix', '\uff47ithub___get_status', /among 3 \(\\uff47ithub___get_status, .*shown as code points$/],
    ['a zero-width space after the prefix', 'github___\u200bget_status', /among 3 \(github___\\u200bget_status, /],
    ['two underscores, not three (mcp-hub\u2019s `github__`)', 'github__get_status', /among 3 \(github__get_status, /],
  ])(
    "lists github's tool under a look-alike name (%s) → gw/github failed/tool_missing, the name as code points; never called",
    async (_, name, among) => {
      const r = await judgeGateway(gateway([name, 'docs___get_status', 'tickets___get_status'].map((n) => listed(n))));
      expectGatewayHealthy(r);
      expectBackend(r.v['gw/github'], 'failed', 'tool_missing', /^tools\/list: no tool named "github___get_status" among 3 /);
      expect(r.v['gw/github']!.detail).toMatch(among);
      expectBackend(r.v['gw/docs'], 'healthy', null);
      expectBackend(r.v['gw/tickets'], 'healthy', null);
      expect(r.calls).toEqual(['docs___get_status', 'tickets___get_status']);
    },
  );

  it.each([
    ['readOnlyHint: false', { readOnlyHint: false }, /docs___get_status is not annotated readOnlyHint: true/],
    ['no annotations', undefined, /docs___get_status has no annotations/],
    ['destructiveHint: true', { destructiveHint: true }, /docs___get_status is annotated destructiveHint: true/],
  ])(
    "lists docs's tool with %s → gw/docs inconclusive/unsafe_tool naming it; the call never sent, the later backend still called",
    async (_, annotations, why) => {
      const docs = annotations ? listed('docs___get_status', annotations) : { name: 'docs___get_status', inputSchema: { type: 'object' } };
      const r = await judgeGateway(gateway([listed('github___get_status'), docs, listed('tickets___get_status')]));
      expectGatewayHealthy(r);
      expectBackend(r.v['gw/docs'], 'inconclusive', 'unsafe_tool', why);
      expect(r.v['gw/docs']!.detail).toMatch(/A canary calls read-only tools only/);
      expectBackend(r.v['gw/github'], 'healthy', null);
      expectBackend(r.v['gw/tickets'], 'healthy', null);
      expect(r.calls).not.toContain('docs___get_status');
      expect(r.calls).toEqual(['github___get_status', 'tickets___get_status']);
    },
  );
});

describe("one backend's call broken at the gateway; the others still judged", () => {
  const tools = THREE.map((n) => listed(n));

  it.each([
    [
      'JSON-RPC -32603 in a 200',
      (_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'docs backend: fetch failed'),
      'tool_error',
      /^tools\/call: the tool answered JSON-RPC error -32603 \(internal error\): "docs backend: fetch failed"/,
    ],
    [
      'JSON-RPC -32603 in a 500',
      (_q, res, rx) => rpcError(res, 500, rx.rpcId, -32603, 'docs backend: fetch failed'),
      'tool_error',
      /-32603 \(internal error\): "docs backend: fetch failed".*\(in an HTTP 500 answer\)/,
    ],
    [
      'isError',
      (_q, res, rx) =>
        rpcResult(res, rx.rpcId, {
          resultType: 'complete',
          isError: true,
          content: [{ type: 'text', text: 'upstream docs: ECONNREFUSED' }],
        }),
      'tool_error',
      /^tools\/call: docs___get_status answered isError: upstream docs: ECONNREFUSED$/,
    ],
    [
      'an HTML 502 from the gateway, for that call only',
      (_q, res) => void res.writeHead(502, { 'content-type': 'text/html' }).end('<html><title>502 Bad Gateway</title></html>'),
      'http_status',
      /^tools\/call: HTTP 502, text\/html/,
    ],
  ] as [string, FaultHandler, string, RegExp][])(
    "docs's call answered with %s → gw/docs failed, its class and the gateway's words; gw, github and tickets healthy",
    async (_, broken, failure, words) => {
      const r = await judgeGateway(gateway(tools, { docs___get_status: broken }), { retries: 1 });
      expectGatewayHealthy(r);
      expect(r.gw.retries).toBe(0);
      expectBackend(r.v['gw/docs'], 'failed', failure, words);
      expectBackend(r.v['gw/github'], 'healthy', null);
      expectBackend(r.v['gw/tickets'], 'healthy', null);
      expect(r.calls).toEqual(THREE);
    },
  );

  it("docs's call never answers → gw/docs failed/timeout alone, tickets after it still judged, all within the budget", async () => {
    const r = await judgeGateway(gateway(tools, { docs___get_status: () => undefined }));
    expectGatewayHealthy(r);
    expectBackend(r.v['gw/docs'], 'failed', 'timeout', /^tools\/call: /);
    expect(r.v['gw/docs']!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expectBackend(r.v['gw/github'], 'healthy', null);
    expectBackend(r.v['gw/tickets'], 'healthy', null);
    expect(r.calls).toEqual(THREE);
  });

  it("every backend's call hangs → each failed/timeout at the request timeout, the last one still reached within the budget", async () => {
    const hang: FaultHandler = () => undefined;
    const r = await judgeGateway(gateway(tools, Object.fromEntries(THREE.map((n) => [n, hang]))));
    expectGatewayHealthy(r);
    for (const b of ['github', 'docs', 'tickets']) expectBackend(r.v[`gw/${b}`], 'failed', 'timeout');
    expect(r.calls).toEqual(THREE);
  });

  it('a backend flow whose second step fails at the gateway → that backend failed naming the step; the others healthy', async () => {
    const flowTools = [...THREE, 'tickets___search'].map((n) => listed(n));
    const r = await judgeGateway(
      gateway(flowTools, { tickets___search: (_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'tickets index offline') }),
      {
        backends: [
          { name: 'github', tool: { name: 'get_status' } },
          {
            name: 'tickets',
            flow: [
              { id: 'status', kind: 'tools/call', name: 'get_status' },
              { id: 'find', kind: 'tools/call', name: 'search' },
            ],
          },
          { name: 'docs', tool: { name: 'get_status' } },
        ],
      },
    );
    expectGatewayHealthy(r);
    expectBackend(r.v['gw/tickets'], 'failed', 'tool_error', /^step 2 "find": tools\/call: .*-32603.*"tickets index offline"/);
    expect(r.v['gw/tickets']!.probes.map((p) => [p.step?.id, p.ok])).toEqual([
      ['status', true],
      ['find', false],
    ]);
    expectBackend(r.v['gw/github'], 'healthy', null);
    expectBackend(r.v['gw/docs'], 'healthy', null);
  });
});

describe("the gateway's own failure is the gateway's: every backend gateway_down, one page", () => {
  it.each([
    [
      '-32603 to tools/list',
      (_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'registry unavailable'),
      'server_error',
      /registry unavailable/,
    ],
    [
      'an HTML 502 to tools/list',
      (_q, res) => void res.writeHead(502, { 'content-type': 'text/html' }).end('<title>Bad Gateway</title>'),
      'http_status',
      /HTTP 502/,
    ],
    ['no answer to tools/list', () => undefined, 'timeout', /^tools\/list: /],
  ] as [string, FaultHandler, string, RegExp][])(
    '%s → gw failed, each backend inconclusive/gateway_down naming the gateway’s failure; no call sent',
    async (_, broken, failure, words) => {
      const normal = gateway(THREE.map((n) => listed(n)));
      const r = await judgeGateway((req, res, rx) => (rx.rpcMethod === 'tools/list' ? broken(req, res, rx) : normal(req, res, rx)));
      expect({ outcome: r.gw.outcome, failure: r.gw.failure }).toEqual({ outcome: 'failed', failure });
      expect(r.gw.detail).toMatch(words);
      expect(r.all.filter((v) => v.outcome === 'failed').map((v) => v.target)).toEqual(['gw']);
      for (const b of ['github', 'docs', 'tickets']) {
        expectBackend(r.v[`gw/${b}`], 'inconclusive', 'gateway_down', new RegExp(`^not judged: the gateway "gw" is down \\(${failure}: `));
        expect(r.v[`gw/${b}`]!.detail).toMatch(/the gateway's own verdict pages, not this backend's$/);
      }
      expect(r.calls).toEqual([]);
    },
  );
});

/**
 * A 2025-11-25 gateway with sessions: initialize gives a fresh `Mcp-Session-Id`; a request on a session
 * it does not know is answered 404. `forget(call)` says, at the n-th tools/call (1-based), whether it
 * forgets every session it holds then (as a gateway replica restarting would); `refuse(n)` whether the
 * n-th initialize is answered 503.
 */
function sessionGateway(tools: readonly unknown[], forget: (call: number) => boolean, refuse = (_n: number) => false): FaultHandler {
  const known = new Set<string>();
  let sessions = 0;
  let calls = 0;
  return (_req, res, rx) => {
    const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
      void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const id = rx.headers['mcp-session-id'];
    if (rx.method === 'GET') return void res.writeHead(405).end();
    if (rx.rpcMethod === 'server/discover')
      return json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }, 400);
    if (rx.rpcMethod === 'initialize') {
      if (refuse(sessions + 1)) return rpcError(res, 503, rx.rpcId, -32603, 'no replica available');
      const sid = `gw-session-${++sessions}`;
      known.add(sid);
      return json(
        {
          jsonrpc: '2.0',
          id: rx.rpcId,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'gw-2025', version: '1.0.0' } },
        },
        200,
        { 'mcp-session-id': sid },
      );
    }
    if (rx.rpcMethod === 'tools/call' && forget(++calls)) known.clear();
    if (typeof id !== 'string' || !known.has(id))
      return json({ jsonrpc: '2.0', id: rx.rpcId ?? null, error: { code: -32001, message: 'Session not found' } }, 404);
    if (rx.method === 'DELETE') return void (known.delete(id), res.writeHead(200).end());
    if (rx.rpcMethod === 'notifications/initialized') return void res.writeHead(202).end();
    if (rx.rpcMethod === 'tools/list') return json({ jsonrpc: '2.0', id: rx.rpcId, result: { tools } });
    if (rx.rpcMethod === 'tools/call') return json({ jsonrpc: '2.0', id: rx.rpcId, result: answer(calledName(rx.body)) });
    return json({ jsonrpc: '2.0', id: rx.rpcId ?? null, error: { code: -32601, message: 'Method not found' } });
  };
}

describe("the gateway's session lost mid-way through the backends (2025-11-25)", () => {
  const tools = THREE.map((n) => listed(n));

  it("forgotten once, at docs's call → a fresh session, docs's call sent again on it: every backend healthy; gw degraded naming the 404", async () => {
    const r = await judgeGateway(sessionGateway(tools, (n) => n === 2));
    expect({ outcome: r.gw.outcome, failure: r.gw.failure }).toEqual({ outcome: 'degraded', failure: null });
    expect(r.gw.detail).toMatch(/^tools\/call: the server forgot the session .*\(HTTP 404\); a fresh session worked/);
    for (const b of ['github', 'docs', 'tickets']) expectBackend(r.v[`gw/${b}`], 'healthy', null);
    expect(r.received.filter((m) => m === 'initialize')).toHaveLength(2);
    expect(r.calls).toEqual(['github___get_status', 'docs___get_status', 'docs___get_status', 'tickets___get_status']);
  });

  it.each([
    ['every session forgotten from docs’s call on', (n: number) => n >= 2, ['github'], ['docs', 'tickets'], 'docs', 3],
    ['forgotten at docs’s call, then again at tickets’s', (n: number) => n === 2 || n === 4, ['github', 'docs'], ['tickets'], 'tickets', 4],
  ] as const)(
    '%s → gw failed/session_lost naming the backend where it broke; the backends judged before keep their verdicts, the rest gateway_down',
    async (_, forget, judged, notJudged, at, calls) => {
      const r = await judgeGateway(sessionGateway(tools, forget));
      expect({ outcome: r.gw.outcome, failure: r.gw.failure }).toEqual({ outcome: 'failed', failure: 'session_lost' });
      expect(r.gw.detail).toMatch(
        new RegExp(`^backend "${at}": tools/call: the server forgot the session again \\(HTTP 404\\) after a fresh initialize`),
      );
      for (const b of judged) expectBackend(r.v[`gw/${b}`], 'healthy', null);
      // The session is the gateway's: losing it pages the gateway once, never a backend.
      for (const b of notJudged)
        expectBackend(r.v[`gw/${b}`], 'inconclusive', 'gateway_down', /^not judged: the gateway "gw" is down \(session_lost: backend /);
      expect(r.received.filter((m) => m === 'initialize')).toHaveLength(2);
      // No backend's call is sent on a session the gateway forgot twice.
      expect(r.calls).toHaveLength(calls);
    },
  );

  it("forgotten at docs's call, and the fresh initialize refused (503) → gw failed/http_status naming docs and the re-initialize; docs and tickets gateway_down", async () => {
    const r = await judgeGateway(
      sessionGateway(
        tools,
        (n) => n === 2,
        (n) => n === 2,
      ),
    );
    expect({ outcome: r.gw.outcome, failure: r.gw.failure }).toEqual({ outcome: 'failed', failure: 'http_status' });
    expect(r.gw.detail).toMatch(
      /^backend "docs": tools\/call: re-initialize after the session was forgotten: .*HTTP 503.*"no replica available"/,
    );
    expectBackend(r.v['gw/github'], 'healthy', null);
    for (const b of ['docs', 'tickets'])
      expectBackend(
        r.v[`gw/${b}`],
        'inconclusive',
        'gateway_down',
        /^not judged: the gateway "gw" is down \(http_status: backend "docs": /,
      );
    expect(r.calls).toEqual(['github___get_status', 'docs___get_status']);
  });
});

describe('a secret echoed through the gateway is never shown', () => {
  const KEY = 'gw-key-5d1e8b7c3a90';
  const echo = (rx: { headers: Record<string, string | string[] | undefined> }) =>
    `upstream refused Authorization: ${String(rx.headers.authorization)} with X-Api-Key ${String(rx.headers['x-api-key'])}`;

  it.each([
    [
      'isError text',
      (_q, res, rx) => rpcResult(res, rx.rpcId, { resultType: 'complete', isError: true, content: [{ type: 'text', text: echo(rx) }] }),
    ],
    ['a -32603 message', (_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, echo(rx))],
    ['a 502 text body', (_q, res, rx) => void res.writeHead(502, { 'content-type': 'text/plain' }).end(echo(rx))],
  ] as [string, FaultHandler][])(
    "docs's call answered with the configured headers echoed in %s → gw/docs failed, [redacted] in its detail, neither secret in any verdict",
    async (_, echoing) => {
      const r = await judgeGateway(
        gateway(
          THREE.map((n) => listed(n)),
          { docs___get_status: echoing },
        ),
        {
          headers: { Authorization: SECRET, 'X-Api-Key': KEY },
        },
      );
      expectGatewayHealthy(r);
      expect(r.v['gw/docs']!.outcome).toBe('failed');
      expect(r.v['gw/docs']!.detail).toContain('upstream refused Authorization: [redacted]');
      const all = JSON.stringify(r.all);
      for (const s of [SECRET, SECRET.slice('Bearer '.length), KEY]) {
        expect(all).not.toContain(s);
        expect(all).not.toContain(s.slice(0, 12));
      }
      // The run's own Redactor has nothing left to take out of any verdict.
      expect(r.redacted(all)).toBe(all);
      expectBackend(r.v['gw/github'], 'healthy', null);
      expectBackend(r.v['gw/tickets'], 'healthy', null);
    },
  );
});

describe('prefixes that are not what they look like', () => {
  it('a prefix with a regex metacharacter (`a.b_`): `axb_get_status` is not its tool → tool_missing; `a.b_get_status` is → healthy', async () => {
    const backends = [
      { name: 'ab', prefix: 'a.b_', tool: { name: 'get_status' } },
      { name: 'docs', tool: { name: 'get_status' } },
    ];
    const wrong = await judgeGateway(gateway(['axb_get_status', 'docs___get_status'].map((n) => listed(n))), { backends });
    expect(wrong.gw.outcome).toBe('healthy');
    expectBackend(wrong.v['gw/ab'], 'failed', 'tool_missing', /^tools\/list: no tool named "a\.b_get_status" among 2 \(axb_get_status, /);
    expectBackend(wrong.v['gw/docs'], 'healthy', null);
    expect(wrong.calls).toEqual(['docs___get_status']);

    const right = await judgeGateway(gateway(['axb_get_status', 'a.b_get_status', 'docs___get_status'].map((n) => listed(n))), {
      backends,
    });
    expectBackend(right.v['gw/ab'], 'healthy', null, /^a\.b_get_status answered as expected through the gateway$/);
    expect(right.calls).toEqual(['a.b_get_status', 'docs___get_status']);
  });

  it('a prefix that looks empty (a zero-width space): the gateway that lists the bare name → tool_missing, the invisible prefix shown as a code point', async () => {
    const backends = [
      { name: 'zw', prefix: '\u200b', tool: { name: 'get_status' } },
      { name: 'docs', tool: { name: 'get_status' } },
    ];
    const r = await judgeGateway(gateway(['get_status', 'docs___get_status'].map((n) => listed(n))), { backends });
    expect(r.gw.outcome).toBe('healthy');
    expectBackend(
      r.v['gw/zw'],
      'failed',
      'tool_missing',
      /^tools\/list: no tool named "\\u200bget_status" among 2 \(get_status, docs___get_status\)/,
    );
    expectBackend(r.v['gw/docs'], 'healthy', null);
    expect(r.all.map((v) => v.detail).join('\n')).not.toContain('\u200b');

    const listedRight = await judgeGateway(gateway(['\u200bget_status', 'docs___get_status'].map((n) => listed(n))), { backends });
    expectBackend(listedRight.v['gw/zw'], 'healthy', null, /^\\u200bget_status answered as expected through the gateway$/);
  });
});

describe("a backend's tool that runs as a task (SEP-2663) through the gateway", () => {
  const TASKS = 'io.modelcontextprotocol/tasks';
  const declaredTasks = (body: string): boolean =>
    (JSON.parse(body) as { params: { _meta?: Record<string, { extensions?: Record<string, unknown> }> } }).params._meta?.[
      'io.modelcontextprotocol/clientCapabilities'
    ]?.extensions?.[TASKS] !== undefined;
  const task = (status: string, extra: Record<string, unknown> = {}) => ({
    taskId: 't-docs',
    status,
    createdAt: '2026-12-05T08:00:00Z',
    lastUpdatedAt: '2026-12-05T08:00:00Z',
    ttl: 60,
    ...extra,
  });
  /** docs's call answers a task only to a client that declared the extension (as SEP-2663 asks); `poll(n)` answers tasks/get. */
  function taskGateway(poll: (n: number) => Record<string, unknown>, declared: boolean[]): FaultHandler {
    let polls = 0;
    return gateway(
      THREE.map((n) => listed(n)),
      {
        docs___get_status: (req, res, rx) => {
          declared.push(declaredTasks(rx.body));
          if (!declaredTasks(rx.body)) return rpcResult(res, rx.rpcId, { resultType: 'complete', ...answer('docs___get_status') });
          rpcResult(res, rx.rpcId, { resultType: 'task', ...task('working', { pollInterval: 100 }) });
        },
      },
      (_req, res, rx) => {
        if (rx.rpcMethod === 'tasks/get') return rpcResult(res, rx.rpcId, { resultType: 'complete', ...poll(polls++) });
        if (rx.rpcMethod === 'tasks/cancel') return rpcResult(res, rx.rpcId, { resultType: 'complete' });
        res.writeHead(400).end();
      },
    );
  }
  const withTask = [
    { name: 'github', tool: { name: 'get_status' } },
    { name: 'docs', tool: { name: 'get_status', task: true } },
    { name: 'tickets', tool: { name: 'get_status' } },
  ];

  it('the call declares the Tasks extension; the task polled to completed → gw/docs healthy with its task line; the others healthy', async () => {
    const declared: boolean[] = [];
    const done = (n: number) =>
      n < 1 ? task('working', { pollInterval: 100 }) : task('completed', { result: answer('docs___get_status') });
    const r = await judgeGateway(taskGateway(done, declared), { backends: withTask });
    expect(declared).toEqual([true]);
    expectGatewayHealthy(r);
    expectBackend(r.v['gw/docs'], 'healthy', null);
    expect(r.v['gw/docs']!.probes[0]!.task).toMatchObject({ taskId: 't-docs' });
    expect(r.received.filter((m) => m === 'tasks/get')).toHaveLength(2);
    expectBackend(r.v['gw/github'], 'healthy', null);
    expectBackend(r.v['gw/tickets'], 'healthy', null);
  });

  it('a task that never ends → gw/docs failed/timeout naming the task, tasks/cancel sent; tickets after it still judged', async () => {
    const r = await judgeGateway(
      taskGateway(() => task('working', { pollInterval: 100 }), []),
      { backends: withTask },
    );
    expectGatewayHealthy(r);
    expectBackend(r.v['gw/docs'], 'failed', 'timeout', /task t-docs of docs___get_status was still working/);
    expect(r.received).toContain('tasks/cancel');
    expectBackend(r.v['gw/github'], 'healthy', null);
    expectBackend(r.v['gw/tickets'], 'healthy', null);
  });
});
