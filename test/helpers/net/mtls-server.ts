/**
 * A real MCP server (the SDK's, 2026-07-28 and 2025-11-25 both) on https://127.0.0.1:<port 0>, its
 * certificate from a private CA, pinned to one TLS version, and optionally requiring a client
 * certificate its CA signed (`requestCert` + `rejectUnauthorized`: OpenSSL's verify-peer and
 * fail-if-no-peer-cert, as API gateways and meshes do). On TLS 1.3 the server's refusal is the
 * post-handshake `certificate_required` alert; on TLS 1.2 a `handshake_failure` after the key exchange.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureVersion } from 'node:tls';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Pki } from './pki.ts';

export interface MtlsServer {
  readonly url: string;
  readonly port: number;
  /** Subjects of the client certificates the server accepted, in order. */
  readonly clients: string[];
  close(): Promise<void>;
}

export async function startMtlsMcp(pki: Pki, o: { version: SecureVersion; requireClientCert: boolean }): Promise<MtlsServer> {
  const handler = toNodeHandler(
    createMcpHandler(() => {
      const s = new McpServer({ name: 'mtls-rates', version: '1.0.0' });
      s.registerTool(
        'get_rate',
        { description: 'rate', inputSchema: z.object({}).catchall(z.unknown()), annotations: { readOnlyHint: true } },
        async () => ({ content: [{ type: 'text' as const, text: 'EURUSD 1.08' }] }),
      );
      return s;
    }),
  );
  const clients: string[] = [];
  const server: Server = createServer(
    {
      key: pki.server.key,
      cert: pki.server.cert,
      minVersion: o.version,
      maxVersion: o.version,
      ...(o.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: pki.caPem } : {}),
    },
    async (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate?.();
      if (peer?.subject?.CN) clients.push(String(peer.subject.CN));
      let raw = '';
      for await (const c of req) raw += String(c);
      await handler(req, res, raw ? JSON.parse(raw) : undefined);
    },
  );
  // Failed handshakes are the point of these servers: they must not crash the test process.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/mcp`,
    port,
    clients,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
