/**
 * A trusted-but-expiring certificate, as a real endpoint has a week before renewal: a test CA (made
 * with openssl) signs a leaf for 127.0.0.1 valid for `days`. The client trusts the CA through a
 * dispatcher of its own (in process) or NODE_EXTRA_CA_CERTS (a child process).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { FetchLike } from '../../../functions/base/net/wire.ts';
import { requireTool } from '../tools.ts';

export interface TestPki {
  readonly caPem: string;
  readonly key: string;
  readonly cert: string;
}

export function expiringCertificate(days: number): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-pki-'));
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync(requireTool('openssl'), args, { stdio: 'ignore' });
  try {
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-subj',
      '/CN=mcp-canary test CA',
      '-days',
      '30',
    );
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('leaf.key'), '-out', f('leaf.csr'), '-subj', '/CN=127.0.0.1');
    writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    ssl(
      'x509',
      '-req',
      '-in',
      f('leaf.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('leaf.pem'),
      '-days',
      String(days),
      '-extfile',
      f('ext.cnf'),
    );
    return {
      caPem: readFileSync(f('ca.pem'), 'utf8'),
      key: readFileSync(f('leaf.key'), 'utf8'),
      cert: readFileSync(f('leaf.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An https MCP server (2026-07-28) with a read-only tool; `authorization` must match when given. */
export async function startHttpsMcp(pki: TestPki, authorization?: string): Promise<{ url: string; close(): Promise<void> }> {
  const modern = toNodeHandler(
    createMcpHandler(
      () => {
        const s = new McpServer({ name: 'rates-tls', version: '1.0.0' });
        s.registerTool(
          'get_rate',
          { description: 'rate', inputSchema: z.object({}).catchall(z.unknown()), annotations: { readOnlyHint: true } },
          async () => ({ content: [{ type: 'text' as const, text: 'EURUSD 1.08' }] }),
        );
        return s;
      },
      { legacy: 'reject' },
    ),
  );
  const server: Server = createServer({ key: pki.key, cert: pki.cert }, async (req, res) => {
    if (authorization !== undefined && req.headers.authorization !== authorization) {
      res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
      return;
    }
    let raw = '';
    for await (const c of req) raw += String(c);
    await modern(req, res, raw ? JSON.parse(raw) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A fetch that trusts the test CA. Node's fetch takes a `dispatcher`; its undici Agent class is
 * reached through the global dispatcher (the undici package itself is not a dependency).
 */
export async function fetchTrusting(caPem: string): Promise<FetchLike> {
  await fetch('data:,').then((r) => r.arrayBuffer());
  const Agent = (globalThis as unknown as Record<symbol, { constructor: new (o: object) => unknown }>)[
    Symbol.for('undici.globalDispatcher.1')
  ]!.constructor;
  const dispatcher = new Agent({ connect: { ca: caPem } });
  return (url, init) => fetch(url, { ...init, dispatcher } as RequestInit);
}
