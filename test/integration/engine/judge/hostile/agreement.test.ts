/**
 * Pinned and auto agree: every hostile row whose answer does not depend on the era asked — the same
 * answer to discover and to initialize, and not itself an answer of one era — runs in auto mode and
 * pinned to each revision, and must end in the same class. (The rows whose answer is era evidence —
 * a 2025 server's "Server not initialized", `-32022`, a revision negotiated — are meant to differ, and
 * are not here.) Real sockets on 127.0.0.1, every run within the run budget + 10 %.
 */
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { judge } from '../../../../../functions/engine/judge/judge.ts';
import type { Verdict } from '../../../../../functions/base/common/verdict.ts';
import { expiringCertificate, fetchTrusting } from '../../../../helpers/auth/tls.ts';
import { rpcError, rpcResult, selfSignedCert, startFaultServer, type FaultHandler } from '../../../../helpers/faults.ts';
import { freePort } from '../../../../helpers/moto.ts';
import { target } from '../../../../helpers/probe.ts';
import { BOUND_MS, BUDGET_MS, hugeBody, TIMEOUT_MS, judgeTimed, latenessOf } from '../../../../helpers/hostile/harness.ts';
import { describeNeeding } from '../../../../helpers/tools.ts';

/** Every suite here needs openssl: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['openssl']);

const MODES = ['auto', '2025-11-25', '2026-07-28'] as const;
const LIMITS = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS };

/** Answers every POST the same way, whatever it asks. */
const ROWS: ReadonlyArray<readonly [string, FaultHandler, string]> = [
  ['401 with a challenge', (_q, res) => void res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end(), 'auth'],
  ['403 with a reason', (_q, res) => void res.writeHead(403, { 'content-type': 'text/plain' }).end('not from here'), 'auth'],
  ['429 with Retry-After', (_q, res) => void res.writeHead(429, { 'retry-after': '60' }).end(), 'http_status'],
  ['500 with a JSON-RPC body', (_q, res, rx) => rpcError(res, 500, rx.rpcId, -32603, 'internal'), 'http_status'],
  ['503 with Retry-After', (_q, res) => void res.writeHead(503, { 'retry-after': '3600' }).end('maintenance'), 'http_status'],
  [
    'an HTML 502 from a proxy',
    (_q, res) => void res.writeHead(502, { 'content-type': 'text/html' }).end('<title>Bad Gateway</title>'),
    'http_status',
  ],
  [
    'a wrong path (404 HTML)',
    (_q, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not Found</title>'),
    'http_status',
  ],
  ['405 to every POST', (_q, res) => void res.writeHead(405, { allow: 'GET' }).end(), 'http_status'],
  [
    'a JSON-RPC -32603 in a 200 (a gateway whose backend is down)',
    (_q, res, rx) => rpcError(res, 200, rx.rpcId, -32603, 'fetch failed'),
    'server_error',
  ],
  ['a JSON-RPC -32050 in a 200', (_q, res, rx) => rpcError(res, 200, rx.rpcId, -32050, 'backend pool exhausted'), 'server_error'],
  ['200 with invalid JSON', (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": '), 'protocol'],
  ['the wrong id', (_q, res) => rpcResult(res, 987654, {}), 'protocol'],
  ['an empty JSON array', (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('[]'), 'protocol'],
  ['202 to a request', (_q, res) => void res.writeHead(202).end(), 'protocol'],
  [
    'an HTML login page with 200',
    (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Sign in</title>'),
    'protocol',
  ],
  [
    'a 200 cut short of its Content-Length',
    (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' }).write('{"jsonrpc":');
      setTimeout(() => req.socket.destroy(), 20);
    },
    'protocol',
  ],
  ['a 5 MB body', hugeBody(5 * 1024 * 1024), 'protocol'],
  ['no answer at all', () => new Promise<void>(() => {}), 'timeout'],
];

function expectAgreement(verdicts: Record<string, Verdict>, failure: string): void {
  expect(Object.fromEntries(Object.entries(verdicts).map(([m, v]) => [m, `${v.outcome}/${v.failure}`]))).toEqual(
    Object.fromEntries(MODES.map((m) => [m, `failed/${failure}`])),
  );
  for (const v of Object.values(verdicts)) expect(v.durationMs).toBeLessThanOrEqual(BOUND_MS + latenessOf(v));
}

async function inEveryMode(url: string, deps: Parameters<typeof judge>[1] = {}): Promise<Record<string, Verdict>> {
  const out: Record<string, Verdict> = {};
  for (const revision of MODES) out[revision] = await judgeTimed(target(url, { ...LIMITS, revision }), deps);
  return out;
}

describe('pinned and auto agree on every era-independent answer', () => {
  it.each(ROWS)('%s → the same class in auto, pinned 2025-11-25 and pinned 2026-07-28', async (_name, handler, failure) => {
    const server = await startFaultServer(handler);
    try {
      expectAgreement(await inEveryMode(server.url), failure);
    } finally {
      await server.close();
    }
  });

  it('connection refused → unreachable in every mode', async () => {
    expectAgreement(await inEveryMode(`http://127.0.0.1:${await freePort()}/mcp`), 'unreachable');
  });

  it('a TCP port that never speaks HTTP → timeout in every mode', async () => {
    const sockets = new Set<Socket>();
    const server: NetServer = createNetServer((s) => void sockets.add(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      expectAgreement(await inEveryMode(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), 'timeout');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  describe('TLS', () => {
    let tlsServers: HttpsServer[] = [];
    beforeAll(() => {
      tlsServers = [];
    });
    afterAll(async () => {
      for (const s of tlsServers) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    });
    const listen = async (options: object): Promise<string> => {
      const s = createHttpsServer(options, (_q, res) => void res.end('{}'));
      s.on('tlsClientError', () => {});
      tlsServers.push(s);
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      return `https://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`;
    };

    it('a self-signed certificate → tls in every mode', async () => {
      expectAgreement(await inEveryMode(await listen(selfSignedCert())), 'tls');
    });

    it.each(['TLSv1.2', 'TLSv1.3'])('a client certificate required on %s → tls in every mode', async (version) => {
      const pki = expiringCertificate(30);
      const url = await listen({
        key: pki.key,
        cert: pki.cert,
        ca: pki.caPem,
        requestCert: true,
        rejectUnauthorized: true,
        maxVersion: version,
        minVersion: version,
      });
      expectAgreement(await inEveryMode(url, { fetch: await fetchTrusting(pki.caPem) }), 'tls');
    });
  });
});
