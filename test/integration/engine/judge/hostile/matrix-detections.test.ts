/**
 * The hostile matrix, fifth set: the three detections a platform team expects — a catalog that shrank to
 * authentication tools (`auth`), an upstream's 401 handed back as an ordinary answer (`upstream_credential`)
 * and the Server Card (`server_card`). Real SDK servers of both eras on 127.0.0.1 (functions/demo/servers.ts);
 * the rows are the table in README.md. Same bound as every row: the run budget + 10 %.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startMcpServer,
  type McpServerOptions,
  type RunningServer,
  type ToolAnswer,
  type ToolSpec,
} from '../../../../../functions/demo/servers.ts';
import type { Verdict } from '../../../../../functions/base/common/verdict.ts';
import { CardMemory } from '../../../../../functions/engine/card/memory.ts';
import { fingerprintCatalog } from '../../../../../functions/engine/catalog/fingerprint.ts';
import { modernEndpoint, startFaultServer } from '../../../../helpers/faults.ts';
import { judgeTimed, latenessOf } from '../../../../helpers/hostile/harness.ts';
import { SECRET, target } from '../../../../helpers/probe.ts';
import type { TargetInput } from '../../../../../functions/base/config/schema/target.ts';

const ERAS = ['modern', 'legacy'] as const;
const REVISION = { modern: '2026-07-28', legacy: '2025-11-25' } as const;

const readOnly = { readOnlyHint: true } as const;
const plain = (name: string, text = 'ok'): ToolSpec => ({
  name,
  annotations: readOnly,
  handler: () => ({ content: [{ type: 'text', text }] }),
});
const rate = (answer: ToolAnswer = { content: [{ type: 'text', text: 'EURUSD 1.08' }] }): ToolSpec => ({
  name: 'get_rate',
  annotations: readOnly,
  handler: () => answer,
});

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function serve(opts: McpServerOptions): Promise<RunningServer> {
  const s = await startMcpServer(opts);
  running.push(s);
  return s;
}

/**
 * Real SDK servers build a server per request (2026-07-28): on a loaded machine the matrix's 600 ms request
 * timeout would judge their slowness, not the rule. These rows give them 2 s, within a 6 s budget.
 */
const TIMEOUT_MS = 2_000;
const BUDGET_MS = 6_000;

async function run(url: string, over: Partial<TargetInput> = {}, cards = new CardMemory()): Promise<Verdict> {
  const started = performance.now();
  const v = await judgeTimed(target(url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, ...over }), { serverCards: cards });
  // The whole judge() call, the card's fetch after the verdict included, keeps the bound: the budget + 10 %.
  expect(performance.now() - started).toBeLessThanOrEqual(BUDGET_MS * 1.1 + latenessOf(v));
  return v;
}

/** The outcome and class (the detail shown when they differ), and the detail's words. */
function expectVerdict(v: Verdict, outcome: string, failure: string | null, detail?: RegExp): void {
  expect({ outcome: v.outcome, failure: v.failure }, v.detail).toEqual({ outcome, failure });
  if (detail) expect(v.detail).toMatch(detail);
}

const kinds = (v: Verdict, kind: string) => v.warnings.filter((w) => w.kind === kind).map((w) => w.detail);

describe.each(ERAS)('a catalog that shrank to authentication tools (%s)', (era) => {
  it.each<[string, ToolSpec[], RegExp]>([
    ['only authenticate', [plain('authenticate')], /only authentication tools remain \(authenticate\)/],
    ['login and auth_status', [plain('login'), plain('auth_status')], /remain \(login, auth_status\)/],
    ['start_oauth_flow beside ping', [plain('start_oauth_flow'), plain('ping')], /remain \(start_oauth_flow, beside ping\)/],
    [
      'reauthenticate beside whoami and get_server_info',
      [plain('reauthenticate'), plain('whoami'), plain('get_server_info')],
      /beside whoami, get_server_info/,
    ],
  ])('%s → failed/auth naming what remained; the tool is never called', async (_row, tools, detail) => {
    const s = await serve({ era, tools });
    const v = await run(s.url);
    expectVerdict(v, 'failed', 'auth', detail);
    expect(v.detail).toMatch(/expired or were refused/);
    expect(v.probes.find((p) => p.name === 'tools/list')).toMatchObject({ ok: false, failure: 'auth' });
    expect(s.methods()).not.toContain('tools/call');
  });

  it('against the recorded catalog: it shrank and only the way in is new → failed/auth with how far; no drift warnings', async () => {
    const full = ['get_rate', 'list_pairs', 'convert', 'ping'].map((n) => ({ name: n, description: `${n} (test tool)` }));
    const s = await serve({ era, tools: [plain('list_pairs'), plain('authenticate')] });
    const v = await run(s.url, { catalog: fingerprintCatalog(full) });
    expectVerdict(v, 'failed', 'auth', /remain \(authenticate, beside list_pairs\); the catalog shrank from 4 recorded tool\(s\) to 2/);
    expect(kinds(v, 'catalog_drift')).toEqual([]);
  });

  it.each<[string, ToolSpec[]]>([
    ['a renamed tool beside login', [plain('get_rates'), plain('login')]],
    ['no tool that reads like authentication', [plain('get_rates'), plain('ping')]],
    ['an author tool (not auth)', [plain('get_author')]],
  ])('%s → failed/tool_missing stands', async (_row, tools) => {
    const s = await serve({ era, tools });
    expectVerdict(await run(s.url), 'failed', 'tool_missing', /no tool named "get_rate"/);
  });
});

describe('a catalog that shrank: descriptions (hand-written endpoint)', () => {
  it.each([
    ['Log in to your Acme account to unlock the tools'],
    ['Authentication required: call this and open the link it returns'],
    ['Your session has expired. Call this first.'],
  ])('a tool described "%s" → failed/auth', async (description) => {
    const server = await startFaultServer(modernEndpoint({ tools: [{ name: 'begin', description, inputSchema: { type: 'object' } }] }));
    try {
      expectVerdict(await run(server.url), 'failed', 'auth', /only authentication tools remain \(begin\)/);
    } finally {
      await server.close();
    }
  });
});

describe.each(ERAS)("an upstream's 401 as an ordinary answer (%s)", (era) => {
  it.each<[string, ToolAnswer, RegExp]>([
    ['"401 Unauthorized"', { content: [{ type: 'text', text: 'Upstream API: 401 Unauthorized' }] }, /401 Unauthorized/],
    ['"Invalid API key"', { content: [{ type: 'text', text: 'Error: Invalid API key provided' }] }, /Invalid API key/],
    ['"token expired"', { content: [{ type: 'text', text: 'The access token expired at 09:00' }] }, /access token expired/],
    ['invalid_grant', { content: [{ type: 'text', text: '{"error":"invalid_grant"}' }] }, /invalid_grant/],
    ['{"error":{"code":401}} as text', { content: [{ type: 'text', text: '{"error":{"code":401,"message":"denied"}}' }] }, /401/],
    [
      'a 401 deep in structuredContent',
      { content: [], structuredContent: { upstream: { httpStatus: 401 } } },
      /a JSON error with status 401/,
    ],
  ])('%s with nothing checking the answer → healthy, warned upstream_credential', async (_row, answer, words) => {
    const s = await serve({ era, tools: [rate(answer)] });
    const v = await run(s.url);
    expectVerdict(v, 'healthy', null);
    const [w, ...more] = kinds(v, 'upstream_credential');
    expect(more).toEqual([]);
    expect(w).toMatch(words);
    expect(w).toMatch(/reads like an expired or revoked upstream credential/);
  });

  it('with an expectation the expectation decides: failed/assertion, no warning', async () => {
    const s = await serve({ era, tools: [rate({ content: [{ type: 'text', text: '401 Unauthorized' }] })] });
    const text = await run(s.url, { tool: { name: 'get_rate', expectText: 'EURUSD' } });
    expectVerdict(text, 'failed', 'assertion');
    expect(kinds(text, 'upstream_credential')).toEqual([]);
    const json = await run(s.url, { tool: { name: 'get_rate', expectJson: { rate: 1.08 } } });
    expectVerdict(json, 'failed', 'assertion');
    expect(kinds(json, 'upstream_credential')).toEqual([]);
  });

  it.each([['EURUSD 1.401'], ['{"rate":401}'], ['Token count: 401']])('an ordinary answer (%s) → no warning', async (answer) => {
    const s = await serve({ era, tools: [rate({ content: [{ type: 'text', text: answer }] })] });
    const v = await run(s.url);
    expectVerdict(v, 'healthy', null);
    expect(kinds(v, 'upstream_credential')).toEqual([]);
  });
});

/** A Server Card endpoint: its JSON, its ETag (a 304 to a matching If-None-Match), and every request it saw. */
function cardServer(card: () => unknown, etag: () => string | null = () => null) {
  const seen: IncomingMessage['headers'][] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.headers);
    const tag = etag();
    if (tag && req.headers['if-none-match'] === tag) return void res.writeHead(304, { etag: tag }).end();
    res.writeHead(200, { 'content-type': 'application/json', ...(tag ? { etag: tag } : {}) }).end(JSON.stringify(card()));
  };
  return { handler, seen };
}

const cardOf = (era: 'modern' | 'legacy', over: Record<string, unknown> = {}) => ({
  $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
  name: 'io.example/rates',
  version: '1.4.2',
  remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1/mcp', supportedProtocolVersions: [REVISION[era]] }],
  capabilities: { tools: { listChanged: true } },
  ...over,
});

describe.each(ERAS)('Server Cards (%s)', (era) => {
  it('a card that agrees → healthy, no warning; the next run sends If-None-Match and a 304 is the same card; no credentials sent', async () => {
    const card = cardServer(
      () => cardOf(era),
      () => '"v1"',
    );
    const s = await serve({ era, tools: [rate()], serverCard: card.handler });
    const cards = new CardMemory();
    const first = await run(s.url, {}, cards);
    const second = await run(s.url, {}, cards);
    for (const v of [first, second]) {
      expectVerdict(v, 'healthy', null);
      expect(kinds(v, 'server_card')).toEqual([]);
    }
    expect(card.seen.map((h) => h['if-none-match'] ?? null)).toEqual([null, '"v1"']);
    expect(card.seen.every((h) => h.authorization === undefined && !JSON.stringify(h).includes(SECRET))).toBe(true);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'another name',
      { name: 'io.example/billing' },
      /the card names the server "io.example\/billing", (server\/discover|initialize) "rates"/,
    ],
    ['another version', { version: '2.0.0' }, /the card says version 2.0.0, (server\/discover|initialize) 1.4.2/],
    [
      'protocol versions the server does not speak',
      { remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1/mcp', supportedProtocolVersions: ['2024-11-05'] }] },
      /the card lists protocol versions 2024-11-05/,
    ],
    [
      'a capability the server does not declare',
      { capabilities: { tools: { listChanged: true }, resources: {} } },
      /the card declares resources/,
    ],
    [
      'static tools the server does not list',
      { capabilities: { tools: {} }, tools: [{ name: 'get_rate' }, { name: 'get_history' }] },
      /get_history that tools\/list does not/,
    ],
  ])('a card with %s → healthy, warned server_card', async (_row, over, detail) => {
    const card = cardServer(() => cardOf(era, over));
    const s = await serve({ era, tools: [rate()], serverCard: card.handler });
    const v = await run(s.url);
    expectVerdict(v, 'healthy', null);
    const found = kinds(v, 'server_card');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^server card: contradicts the server: /);
    expect(found[0]).toMatch(detail);
  });

  it('a card that changed between runs (a new ETag) → warned as drift, naming each change', async () => {
    let version = '1.4.2';
    const card = cardServer(
      () => cardOf(era, { version, capabilities: { tools: { listChanged: true }, logging: {} } }),
      () => `"${version}"`,
    );
    const s = await serve({ era, tools: [rate()], serverCard: card.handler });
    const cards = new CardMemory();
    await run(s.url, {}, cards);
    version = '1.5.0';
    const v = await run(s.url, {}, cards);
    expect(kinds(v, 'server_card')).toContainEqual('server card: changed since it was last read: version 1.4.2 → 1.5.0');
  });

  it('a card read before, then 404 or 500 → warned; never a failure', async () => {
    let status = 200;
    const s = await serve({
      era,
      tools: [rate()],
      serverCard: (_req, res) => {
        if (status !== 200) return void res.writeHead(status).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cardOf(era)));
      },
    });
    const cards = new CardMemory();
    await run(s.url, {}, cards);
    status = 500;
    const broken = await run(s.url, {}, cards);
    expectVerdict(broken, 'healthy', null);
    expect(kinds(broken, 'server_card')).toEqual([
      expect.stringMatching(/could not be read this run at .*\/\.well-known\/mcp\/server-card: HTTP 500/),
    ]);
    status = 404;
    // The 500 did not forget the card: the 404 says it is gone.
    const gone = await run(s.url, {}, cards);
    expect(kinds(gone, 'server_card')).toEqual([expect.stringMatching(/no longer served \(HTTP 404\)/)]);
    expect(kinds(await run(s.url, {}, cards), 'server_card')).toEqual([]);
  });
});

describe('Server Cards that cannot be read', () => {
  const handlers: Array<[string, (req: IncomingMessage, res: ServerResponse) => void, RegExp | null]> = [
    ['404', (_q, res) => void res.writeHead(404).end(), null],
    ['500', (_q, res) => void res.writeHead(500).end('oops'), null],
    ['401', (_q, res) => void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end(), null],
    [
      'an HTML page (a web app answering every path)',
      (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>app</html>'),
      null,
    ],
    ['a hang', () => {}, null],
    [
      'headers, then a body that never ends',
      (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).write('{"name":'),
      null,
    ],
    [
      'JSON that is not valid',
      (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":'),
      /not a card: not valid JSON/,
    ],
    [
      'JSON without a version',
      (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"io.x/y"}'),
      /not a card: no "version"/,
    ],
    [
      'JSON over 64 KiB',
      (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"pad":"${'x'.repeat(70_000)}"}`),
      /not a card: larger than 64 KiB/,
    ],
  ];

  it.each(handlers)('%s → healthy, within the bound; a warning only for JSON that is not a card', async (_row, handler, detail) => {
    const s = await serve({ era: 'modern', tools: [rate()], serverCard: handler });
    const v = await run(s.url);
    expectVerdict(v, 'healthy', null);
    expect(kinds(v, 'server_card')).toEqual(detail ? [expect.stringMatching(detail)] : []);
  });

  it('a location that served no card (404, or a hang) is asked again only after an hour: one GET for two runs', async () => {
    for (const handler of [(_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end(), () => {}]) {
      let asked = 0;
      const s = await serve({
        era: 'modern',
        tools: [rate()],
        serverCard: (req, res) => {
          asked++;
          handler(req, res);
        },
      });
      const cards = new CardMemory();
      await run(s.url, {}, cards);
      await run(s.url, {}, cards);
      expect(asked).toBe(1);
    }
  });

  it('a redirect is never followed: the other origin receives nothing', async () => {
    const elsewhere = await startFaultServer((_q, res) => void res.writeHead(200).end());
    try {
      const s = await serve({
        era: 'legacy',
        tools: [rate()],
        serverCard: (_q, res) => void res.writeHead(302, { location: `${elsewhere.url}/card` }).end(),
      });
      const v = await run(s.url);
      expectVerdict(v, 'healthy', null);
      expect(kinds(v, 'server_card')).toEqual([]);
      expect(elsewhere.received).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('a run that never completed its handshake asks for no card', async () => {
    const server = await startFaultServer((_q, res) => void res.writeHead(503).end(), {
      serverCard: (_q, res) => void res.writeHead(200).end('{}'),
    });
    try {
      expectVerdict(await run(server.url), 'failed', 'http_status');
      expect(server.cards).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('no secret in what the detections quote', () => {
  const key = SECRET.replace(/^Bearer /, '');

  it.each(ERAS)('an upstream answer and a Server Card that echo the canary key (%s) → [redacted] in every warning', async (era) => {
    const card = cardServer(() => cardOf(era, { name: `io.example/${key}` }));
    const s = await serve({
      era,
      tools: [rate({ content: [{ type: 'text', text: `401 Unauthorized: key ${key} was revoked` }] })],
      serverCard: card.handler,
    });
    const v = await run(s.url);
    expect(kinds(v, 'upstream_credential')).toEqual([expect.stringContaining('[redacted]')]);
    expect(kinds(v, 'server_card')).toEqual([expect.stringContaining('[redacted]')]);
    expect(JSON.stringify(v)).not.toContain(key.slice(0, 12));
  });
});
