/**
 * A TLS server that asks for a client certificate and, when none it trusts came, sends no TLS alert:
 * it ends the connection on the first bytes of the request, before any HTTP answer (`reset`: a TCP
 * RST, as Node's own TLS 1.3 server and many Go and Java servers do; `close`: a plain close). A trusted
 * client gets a real MCP server behind it. `requestCert: false` is the control: a server that resets
 * everyone without ever asking for a certificate.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { createSecureContext, TLSSocket, type SecureVersion } from 'node:tls';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Pki } from './pki.ts';

export interface ResettingServer {
  readonly url: string;
  /** Connections ended without an answer. */
  readonly refused: () => number;
  close(): Promise<void>;
}

export async function startResettingTls(
  pki: Pki,
  o: { version: SecureVersion; end: 'reset' | 'close'; requestCert?: boolean },
): Promise<ResettingServer> {
  const handler = toNodeHandler(
    createMcpHandler(() => {
      const s = new McpServer({ name: 'resetting', version: '1.0.0' });
      s.registerTool('get_rate', { inputSchema: z.object({}).catchall(z.unknown()), annotations: { readOnlyHint: true } }, async () => ({
        content: [{ type: 'text' as const, text: 'EURUSD 1.08' }],
      }));
      return s;
    }),
  );
  const http = createHttpServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += String(c);
    await handler(req, res, raw ? JSON.parse(raw) : undefined);
  });
  const secureContext = createSecureContext({
    key: pki.server.key,
    cert: pki.server.cert,
    ca: pki.caPem,
    minVersion: o.version,
    maxVersion: o.version,
  });
  // A TLSSocket made by hand gets no `authorized` (tls.Server sets it): the peer's certificate is checked here.
  const ca = new X509Certificate(pki.caPem);
  const trusted = (tls: TLSSocket) => {
    const raw = tls.getPeerCertificate()?.raw;
    if (!raw) return false;
    const peer = new X509Certificate(raw);
    return peer.checkIssued(ca) && peer.verify(ca.publicKey);
  };
  let refused = 0;
  const raws = new Set<Socket>();
  const server = createNetServer((raw) => {
    raws.add(raw);
    raw.on('close', () => raws.delete(raw));
    raw.on('error', () => {});
    const tls = new TLSSocket(raw, { isServer: true, secureContext, requestCert: o.requestCert ?? true, rejectUnauthorized: false });
    tls.on('error', () => {});
    tls.once('secure', () => {
      if (trusted(tls)) return void http.emit('connection', tls);
      tls.once('data', () => {
        refused++;
        if (o.end === 'reset') raw.resetAndDestroy();
        else tls.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    refused: () => refused,
    close: async () => {
      for (const r of raws) r.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
