/**
 * The hostile matrix, transport rows: TLS walls on every TLS version (certificates made with openssl
 * here), and interim (1xx) answers before the real one. Real sockets on 127.0.0.1; every row within
 * the run budget + 10 %. The rows are in test/integration/engine/judge/hostile/README.md.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { beforeAll, expect, it } from 'vitest';
import { judge } from '../../../../../functions/engine/judge/judge.ts';
import type { FetchLike } from '../../../../../functions/base/net/wire.ts';
import { expiringCertificate, fetchTrusting, type TestPki } from '../../../../helpers/auth/tls.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer } from '../../../../helpers/faults.ts';
import { SECRET, target } from '../../../../helpers/probe.ts';
import { BUDGET_MS, expectVerdict, judgeFault, legacyEndpoint, TIMEOUT_MS } from '../../../../helpers/hostile/harness.ts';
import { describeNeeding } from '../../../../helpers/tools.ts';

/** Every suite here needs openssl: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['openssl']);

const LIMITS = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS };
let pki: TestPki;
let trusting: FetchLike;
beforeAll(async () => {
  pki = expiringCertificate(30);
  trusting = await fetchTrusting(pki.caPem);
});

/** An https endpoint of the test CA with the given TLS options; counts the HTTP requests that got through. */
async function tlsEndpoint(options: Record<string, unknown>): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const handler = modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) });
  const server: Server = createServer({ key: pki.key, cert: pki.cert, ...options }, async (req, res) => {
    requests++;
    let body = '';
    for await (const c of req) body += String(c);
    const msg = body ? (JSON.parse(body) as { method?: string; id?: unknown }) : {};
    await handler(req, res, {
      method: req.method ?? 'GET',
      url: req.url ?? '',
      rpcMethod: msg.method ?? null,
      rpcId: msg.id,
      headers: req.headers,
      body,
    });
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('TLS walls, on every TLS version', () => {
  it.each(['TLSv1.2', 'TLSv1.3'])(
    'a server on %s that requires a client certificate → failed/tls naming it, never "cannot connect"',
    async (version) => {
      const server = await tlsEndpoint({
        requestCert: true,
        rejectUnauthorized: true,
        ca: pki.caPem,
        minVersion: version,
        maxVersion: version,
      });
      try {
        const v = await judge(target(server.url, LIMITS), { fetch: trusting });
        expectVerdict(
          v,
          'failed',
          'tls',
          /^discover: the server requires a client certificate, which the canary does not send \(TLS alert /,
        );
        expect(v.detail).not.toMatch(/cannot connect/);
        expect(server.requests()).toBe(0);
      } finally {
        await server.close();
      }
    },
  );

  it('the same server with the client certificate optional → healthy (the wall was the certificate)', async () => {
    const server = await tlsEndpoint({ requestCert: true, rejectUnauthorized: false, ca: pki.caPem });
    try {
      expectVerdict(await judge(target(server.url, LIMITS), { fetch: trusting }), 'healthy', null);
    } finally {
      await server.close();
    }
  });

  it('TLS 1.2, no cipher in common → failed/tls saying so, not "requires a client certificate"', async () => {
    const server = await tlsEndpoint({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' });
    try {
      const v = await judge(target(server.url, LIMITS), { fetch: trusting });
      expectVerdict(
        v,
        'failed',
        'tls',
        /shares no TLS version or cipher with the canary \(TLS alert handshake_failure before the key exchange/,
      );
    } finally {
      await server.close();
    }
  });

  it.each(['TLSv1.2', 'TLSv1.3'])(
    'a server on %s that resets, with no alert, on a client certificate of another CA → failed/tls naming the refusal, never "cannot connect"',
    async (version) => {
      // Node's own TLS server verifies the client's certificate and destroys the socket: on TLS 1.2 that
      // reset comes before the handshake completes, so no connected socket ever showed the request for one.
      const stranger = expiringCertificate(30);
      const server = await tlsEndpoint({
        requestCert: true,
        rejectUnauthorized: true,
        ca: pki.caPem,
        minVersion: version,
        maxVersion: version,
      });
      try {
        const reach = { tls: { cert: stranger.cert, key: stranger.key, ca: pki.caPem } };
        const v = await judge(target(server.url, LIMITS), { reach });
        expectVerdict(v, 'failed', 'tls', /^discover: the server refused the client certificate the canary presented/);
        expect(v.detail).not.toMatch(/cannot connect/);
        expect(server.requests()).toBe(0);
      } finally {
        await server.close();
      }
    },
  );

  it.each([
    [
      'none',
      '400 No required SSL certificate was sent',
      /^discover: the server requires a client certificate, which the canary does not send \(HTTP 400, text\/html: "400 No required SSL certificate was sent", nginx's ssl_verify_client\)/,
    ],
    [
      'a stranger',
      '400 The SSL certificate error',
      /^discover: the server refused the client certificate the canary presented \(HTTP 400, text\/html: "400 The SSL certificate error"/,
    ],
  ] as const)(
    "nginx's ssl_verify_client answer in HTTP (client certificate: %s) → failed/tls, judged by discover, not http_status",
    async (sent, title, detail) => {
      // nginx's own page for a missing or refused client certificate, after a handshake that completed.
      const page = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>${title.slice(4)}</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
      let posts = 0;
      const server = createServer({ key: pki.key, cert: pki.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
        posts++;
        req.resume();
        res.writeHead(400, { server: 'nginx', 'content-type': 'text/html' }).end(page);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
        const stranger = sent === 'none' ? null : expiringCertificate(30);
        const reach = { tls: { ca: pki.caPem, ...(stranger ? { cert: stranger.cert, key: stranger.key } : {}) } };
        const v = await judge(target(url, LIMITS), { reach });
        expectVerdict(v, 'failed', 'tls', detail);
        // The SDK's own fallback sends the one initialize a 4xx to discover allows; no more.
        expect(posts).toBeLessThanOrEqual(2);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    },
  );

  it('a server that resets right after a handshake that asked for no client certificate stays unreachable', async () => {
    const server = await tlsEndpoint({});
    const inner = server.url;
    const { createServer: tcp } = await import('node:net');
    // A TCP front that resets every connection once the client has spoken: no TLS was ever answered.
    const front = tcp((c) => c.once('data', () => c.resetAndDestroy()));
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    try {
      const url = inner.replace(/:\d+\//, `:${(front.address() as AddressInfo).port}/`);
      const v = await judge(target(url, LIMITS), { fetch: trusting });
      expectVerdict(v, 'failed', 'unreachable', /cannot connect \(ECONNRESET\)/);
    } finally {
      front.close();
      await server.close();
    }
  });

  it('a server of TLS 1.1 at most → failed/tls: no TLS version in common', async () => {
    const server = await tlsEndpoint({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    try {
      const v = await judge(target(server.url, LIMITS), { fetch: trusting });
      expectVerdict(v, 'failed', 'tls', /no TLS version/);
    } finally {
      await server.close();
    }
  });
});

/** Writes interim answers on the raw socket before the endpoint's own answer, as a proxy or server may. */
function interim(lines: string[], era: 'modern' | 'legacy' = 'modern', gapMs = 0) {
  const endpoint =
    era === 'modern'
      ? modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) })
      : legacyEndpoint({});
  return async (req: import('node:http').IncomingMessage, res: ServerResponse, rx: Parameters<typeof endpoint>[2]) => {
    if (rx.method === 'POST' && rx.rpcId !== undefined) {
      res.socket!.setNoDelay(true);
      for (const line of lines) {
        res.socket!.write(line);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    }
    return endpoint(req, res, rx);
  };
}

describe('interim (1xx) answers before the real one are accepted (RFC 9110 §15.2)', () => {
  it.each([100, 102, 103, 150, 199])('an unsolicited %i before every answer → healthy', async (status) => {
    const { v } = await judgeFault(
      interim([`HTTP/1.1 ${status} Interim\r\n${status === 103 ? 'link: </style.css>; rel=preload\r\n' : ''}\r\n`]),
      {
        tool: { name: 'get_rate', expectJson: { rate: 1.08 } },
      },
    );
    expectVerdict(v, 'healthy', null);
  });

  it('three interim answers in a row, cut across TCP segments mid-line → healthy', async () => {
    const { v } = await judgeFault(
      interim(
        ['HTTP/1.1 1', '00 Continue\r', '\n\r\nHTTP/1.1 102 Processing\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n'],
        'modern',
        15,
      ),
    );
    expectVerdict(v, 'healthy', null);
  });

  it('a 100 Continue on every request of a 2025-11-25 session → healthy', async () => {
    const { v } = await judgeFault(interim(['HTTP/1.1 100 Continue\r\n\r\n'], 'legacy'), {
      tool: { name: 'get_rate', expectText: '1.08' },
    });
    expectVerdict(v, 'healthy', null);
  });

  it('a final answer whose status line arrives a few bytes at a time is untouched → healthy', async () => {
    const endpoint = modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) });
    const { v } = await judgeFault(async (req, res, rx) => {
      if (rx.rpcMethod !== 'tools/call') return endpoint(req, res, rx);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: rx.rpcId,
        result: { resultType: 'complete', content: [], structuredContent: { rate: 1.08 } },
      });
      const raw = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
      res.socket!.setNoDelay(true);
      for (let i = 0; i < 24; i += 3) {
        res.socket!.write(raw.slice(i, i + 3));
        await new Promise((r) => setTimeout(r, 10));
      }
      res.socket!.end(raw.slice(24));
    });
    expectVerdict(v, 'healthy', null);
  });
});

describe('a server that answers, but not in HTTP/1.1, is never "cannot connect"', () => {
  /** A TCP server that answers the first bytes of every connection with `answer`. */
  async function answering(answer: string | Buffer): Promise<{ url: string; close(): void }> {
    const { createServer: tcp } = await import('node:net');
    const server = tcp((c) => {
      c.on('error', () => {});
      c.once('data', () => c.write(answer));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close() };
  }

  it.each([
    ['an SSH banner', 'SSH-2.0-OpenSSH_9.6\r\n', /it began "SSH-2\.0-OpenSSH_9\.6\\x0d\\x0a" — an SSH server: check the port$/],
    [
      'a TLS alert (an https port behind an http:// URL)',
      Buffer.from('150301000202', 'hex'),
      /it began "\\x15\\x03.*" — a TLS server: the URL should be https:\/\/$/,
    ],
    [
      'an HTTP/2 SETTINGS frame',
      Buffer.from('000000040000000000', 'hex'),
      /HTTP\/2 only \(prior knowledge\); the canary speaks HTTP\/1\.1$/,
    ],
    [
      'an unasked 101 Switching Protocols',
      'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n',
      /101 Switching Protocols to a request that asked for no upgrade$/,
    ],
  ] as const)('%s → failed/protocol saying what came, and no fallback', async (_, answer, detail) => {
    const server = await answering(answer);
    try {
      const v = await judge(target(server.url, LIMITS));
      expectVerdict(v, 'failed', 'protocol', detail);
      expect(v.detail).toMatch(/^discover: /);
      expect(v.detail).not.toMatch(/cannot connect|fetch failed|initialize/);
    } finally {
      server.close();
    }
  });

  it('a server that echoes the request back raw: the secret header never appears, not even its head', async () => {
    const { createServer: tcp } = await import('node:net');
    const server = tcp((c) => {
      c.on('error', () => {});
      c.once('data', (d) => c.write(`Authorization: ${SECRET}\r\n${String(d)}`));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const v = await judge(target(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, LIMITS));
      expect(v.failure).toBe('protocol');
      expect(JSON.stringify(v)).not.toContain(SECRET.slice(7, 19));
    } finally {
      server.close();
    }
  });
});

describe('an http:// URL on a TLS port that closes on the plain request, sending nothing', () => {
  it.each([
    ['auto', {}],
    ['pinned 2025-11-25', { revision: '2025-11-25' as const }],
    ['pinned 2026-07-28', { revision: '2026-07-28' as const }],
  ])('%s: Node\'s https server → failed/protocol "the URL should be https://", never "cannot connect"', async (_, over) => {
    const server = await tlsEndpoint({});
    try {
      const url = server.url.replace(/^https:/, 'http:');
      const v = await judge(target(url, { ...LIMITS, ...over }));
      expectVerdict(
        v,
        'failed',
        'protocol',
        /^(discover|initialize): the server closed the connection on a plain-HTTP request \(\w+\), and the same port answers a TLS handshake — a TLS server: the URL should be https:\/\/$/,
      );
      expect(v.detail).not.toMatch(/cannot connect|also failed/);
      expect(server.requests()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('a plain TCP port that closes on every connection stays failed/unreachable: the handshake proves nothing there', async () => {
    const { createServer: tcp } = await import('node:net');
    const server = tcp((c) => {
      c.on('error', () => {});
      c.once('data', () => c.destroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const v = await judge(target(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, LIMITS));
      expectVerdict(v, 'failed', 'unreachable', /cannot connect/);
      expect(v.detail).not.toMatch(/https/);
    } finally {
      server.close();
    }
  });
});

it('an https:// URL on a plain-HTTP port → failed/tls saying the answer is not TLS, with the code', async () => {
  const server = await startFaultServer((_q, res) => void res.writeHead(400).end());
  try {
    const v = await judge(target(server.url.replace(/^http:/, 'https:'), LIMITS));
    expectVerdict(
      v,
      'failed',
      'tls',
      /^discover: TLS handshake failed \(ERR_SSL_\w+\): the answer is not TLS \(a plain-HTTP port\? the URL may be http:\/\/\)$/,
    );
    expect(server.received).toEqual([]);
  } finally {
    await server.close();
  }
});
