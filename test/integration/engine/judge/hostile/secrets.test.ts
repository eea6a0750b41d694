/**
 * The proof of the secrets rule: every value the canary was given — a header value (a Basic header's
 * decoded password too), a query value, a key in the URL's path, URL userinfo — appears nowhere a person or a machine reads (stdout and stderr of the CLI, with and
 * without --json; the verdict; the Lambda's run record and metrics), whatever a hostile server echoes
 * back, in every place a server can put text: a JSON-RPC error message, a plain-text body, a
 * WWW-Authenticate challenge (long enough to be cut), tool text, serverInfo, a redirect's Location.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../../../../functions/lambdas/run/run.ts';
import { runToEnd } from '../../../../helpers/child.ts';
import {
  modernEndpoint,
  readOnlyRateTool,
  rpcResult,
  startFaultServer,
  type FaultHandler,
  type FaultServer,
} from '../../../../helpers/faults.ts';
import { startMoto, type Moto } from '../../../../helpers/moto.ts';
import { HOME_REGION, motoRunDeps, motoSecretClients, NAMESPACE, PROBE_REGION } from '../../../../helpers/run/fixtures.ts';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { cloudWatchAt, listMetrics } from '../../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../../helpers/tools.ts';
import { CLI_BIN } from '../../../../helpers/cli-bin.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

const BIN = CLI_BIN;
const TOKEN = 'sk-proof-4f1c9a7e2b6d8035c1e9f7a2b4d6e8f0';
const API_KEY = 'apikey-proof-77d1e0c4b9a3';
const QUERY_KEY = 'qk-proof-5e2a9c1f7b3d';
const PASSWORD = 'pw-proof-8c3e1a9f';
const PATH_KEY = 'sk-path-3b7e91c04fa2d658';
const BASIC_PASSWORD = 'basic-pw-proof-61f0a2';
const SECRETS = [TOKEN, API_KEY, QUERY_KEY, PASSWORD, PATH_KEY, BASIC_PASSWORD];

/** What the server received that is secret, joined: the echo a hostile server sends back. */
function echo(req: IncomingMessage): string {
  const basic = String(req.headers['proxy-authorization'] ?? '').replace(/^Basic /, '');
  return `auth=${req.headers.authorization} key=${req.headers['x-api-key']} url=${req.url} basic=${Buffer.from(basic, 'base64').toString('utf8')}`;
}

/** Each place a server can put text, as an endpoint that echoes the secrets there. */
const PLACES: Record<string, FaultHandler> = {
  'JSON-RPC error message': (req, res, rx) => rpcErr(res, 400, rx.rpcId, `rejected: ${echo(req)}`),
  'plain-text body': (req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`upstream said ${echo(req)}\nsecond line`);
  },
  'WWW-Authenticate challenge, cut': (req, res) => {
    res
      .writeHead(401, {
        'www-authenticate': `Bearer error="invalid_token", error_description="${'x'.repeat(70)}${req.headers.authorization}"`,
      })
      .end();
  },
  'tool text': (req, res, rx) => tool(req, res, rx, { isError: true, content: [{ type: 'text', text: `denied: ${echo(req)}` }] }),
  serverInfo: (req, res, rx) => {
    if (rx.rpcMethod !== 'server/discover') return tool(req, res, rx, { content: [], structuredContent: { rate: 1.08 } });
    rpcResult(res, rx.rpcId, {
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: `srv ${echo(req)}`, version: `v ${req.headers['x-api-key']}` } },
    });
  },
  'redirect Location (same origin)': (req, res) => {
    res.writeHead(307, { location: `/mcp/${req.headers['x-api-key']}/${QUERY_KEY}?key=${QUERY_KEY}` }).end();
  },
  'redirect Location (another origin)': (req, res) => {
    res.writeHead(302, { location: `http://localhost:1/${encodeURIComponent(String(req.headers.authorization))}?key=${QUERY_KEY}` }).end();
  },
};

function tool(req: IncomingMessage, res: ServerResponse, rx: Parameters<FaultHandler>[2], answer: unknown): void | Promise<void> {
  return modernEndpoint({ tools: [readOnlyRateTool], call: () => answer })(req, res, rx);
}
function rpcErr(res: ServerResponse, status: number, id: unknown, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message } }));
}

/** The secrets, and the head of each (12 characters), a cut could leave before its ellipsis. */
function expectNoSecret(text: string): void {
  for (const s of SECRETS) {
    expect(text).not.toContain(s);
    expect(text).not.toContain(s.slice(0, 12));
    expect(text).not.toContain(encodeURIComponent(s));
  }
}

const servers: Record<string, FaultServer> = {};
let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
  for (const [place, handler] of Object.entries(PLACES)) servers[place] = await startFaultServer(handler);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await moto?.stop();
});

const BASIC = `Basic ${Buffer.from(`canary:${BASIC_PASSWORD}`).toString('base64')}`;
const args = (url: string) => [
  'check',
  `${url}/${PATH_KEY}?key=${QUERY_KEY}`,
  '--header',
  `Authorization: Bearer ${TOKEN}`,
  '--header',
  `X-Api-Key: ${API_KEY}`,
  '--header',
  `Proxy-Authorization: ${BASIC}`,
  '--tool',
  'get_rate',
  '--timeout-ms',
  '1500',
  '--budget-ms',
  '4000',
];

describe('no secret in any output, whatever the server echoes', () => {
  it.each(Object.keys(PLACES))('echoed in the %s: not in stdout or stderr, human or --json', async (place) => {
    const url = servers[place]!.url;
    const human = await runToEnd(process.execPath, [BIN, ...args(url)]);
    const json = await runToEnd(process.execPath, [BIN, ...args(url), '--json']);
    // The server did receive them: the echo is real.
    const got = servers[place]!.received.at(-1)!;
    expect(`${got.headers.authorization} ${got.headers['x-api-key']}`).toBe(`Bearer ${TOKEN} ${API_KEY}`);
    for (const r of [human, json]) {
      expect(r.code, r.stderr).not.toBe(2);
      expectNoSecret(r.stdout);
      expectNoSecret(r.stderr);
    }
    expect(JSON.parse(json.stdout)).toMatchObject([{ outcome: expect.any(String) }]);
  });

  it('in the run record and the metrics of a scheduled run', async () => {
    const lines: string[] = [];
    const targets = Object.entries(servers)
      .map(([place, s], i) => ({
        name: `echo-${i}`,
        url: `${s.url}/${PATH_KEY}?key=${QUERY_KEY}`,
        headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY, 'Proxy-Authorization': BASIC },
        tool: { name: 'get_rate' },
        timeoutMs: 1_500,
        budgetMs: 4_000,
        _place: place,
      }))
      .map(({ _place, ...t }) => t);
    await run({ targets }, motoRunDeps(moto.endpoint, lines));
    expect(lines.length).toBe(targets.length);
    expectNoSecret(lines.join('\n'));
    const metrics = await listMetrics(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE);
    expect(metrics.length).toBeGreaterThan(0);
    expectNoSecret(metrics.join('\n'));
  });

  it('a query secret given by reference: sent, echoed back, in no run record or metric', async () => {
    // Prepare: the value lives only in the store; the config holds its name.
    const QUERY_SECRET = 'qs-proof-0c7d2e9a41f6';
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'proof/query-key', SecretString: `${QUERY_SECRET}\n` }));
    const lines: string[] = [];
    const targets = Object.values(servers).map((s, i) => ({
      name: `query-${i}`,
      url: `${s.url}?read_only=true&verbose`,
      querySecrets: { key: { secretsManager: 'proof/query-key' } },
      tool: { name: 'get_rate' },
      timeoutMs: 1_500,
      budgetMs: 4_000,
    }));
    // Act
    await run({ targets }, motoRunDeps(moto.endpoint, lines));
    // Assess: the servers got it after the url's own query, as written; nothing that leaves the run has it.
    for (const s of Object.values(servers))
      expect(s.received.map((r) => r.url)).toContain(`/mcp?read_only=true&verbose&key=${QUERY_SECRET}`);
    expect(lines.length).toBe(targets.length);
    for (const line of lines) {
      expect(line).not.toContain(QUERY_SECRET);
      expect(line).not.toContain(QUERY_SECRET.slice(0, 12));
      expect(JSON.parse(line)).toMatchObject({ target: expect.stringMatching(/^query-/) });
    }
    const metrics = await listMetrics(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE);
    expect(metrics.join('\n')).not.toContain(QUERY_SECRET);
  });

  it('in what libraries print to the console while a run is judged (the SDK quotes server-supplied tool names)', async () => {
    const echoTool = await startFaultServer((req, res, rx) =>
      modernEndpoint({
        tools: [
          {
            name: `bad-${String(req.headers.authorization).replace(/\s/g, '_')}`,
            annotations: { readOnlyHint: true },
            inputSchema: { type: 'object', properties: { v: { type: 'string', 'x-mcp-header': 'Not Valid' } } },
          },
        ],
      })(req, res, rx),
    );
    try {
      // A process of its own, as the Lambda is: its console is the real one, not the test runner's.
      const script = [
        `import { judge } from ${JSON.stringify(join(import.meta.dirname, '../../../../../functions/engine/judge/judge.ts'))};`,
        `import { Target } from ${JSON.stringify(join(import.meta.dirname, '../../../../../functions/base/config/schema/target.ts'))};`,
        `const v = await judge(Target.parse({ name: 'echo-tool', url: ${JSON.stringify(echoTool.url)}, headers: { Authorization: 'Bearer ${TOKEN}' }, timeoutMs: 1500, budgetMs: 4000 }));`,
        `process.stdout.write(JSON.stringify(v));`,
      ].join('\n');
      const r = await runToEnd(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'healthy' });
      // The SDK did print its warning, with the echoed token redacted.
      expect(r.stderr).toMatch(/excluding tool 'bad-Bearer_\[redacted\]'/);
      expectNoSecret(r.stderr);
      expectNoSecret(r.stdout);
    } finally {
      await echoTool.close();
    }
  });

  it('URL userinfo is refused before anything runs: exit 2, "put credentials in a header", the password never printed', async () => {
    const r = await runToEnd(process.execPath, [BIN, 'check', `http://canary:${PASSWORD}@127.0.0.1:9/mcp`, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/<url> carries credentials .*put credentials in a header/);
    expectNoSecret(r.stderr);
    // The advice stays readable: it holds no word a short credential could be cut out of.
    const plain = await runToEnd(process.execPath, [BIN, 'check', 'https://user:pass@mcp.example.com/mcp']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).not.toContain('[redacted]');
    expect(plain.stderr).not.toContain('pass@');
  });
});
