/**
 * The unattended-auth posture check against real authorization servers (oidc-provider): one that
 * offers the client_credentials grant, one that offers authorization code only (with dynamic
 * registration), behind an SDK MCP server that publishes RFC 9728 metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unattendedAuth } from '../../../../functions/engine/posture/unattended.ts';
import { startDelegatedAuthServer, type DelegatedAuthServer } from '../../../helpers/auth/delegated.ts';
import { rsaClientKey, startAuthServer, startProtectedMcp, type AuthServer, type ProtectedMcp } from '../../../helpers/auth/servers.ts';

let codeOnly: DelegatedAuthServer;
let machine: AuthServer;
let codeMcp: ProtectedMcp;
let machineMcp: ProtectedMcp;

beforeAll(async () => {
  codeOnly = await startDelegatedAuthServer({ resources: () => [] });
  machine = await startAuthServer({ clientKey: rsaClientKey(), resources: () => [] });
  codeMcp = await startProtectedMcp({ issuer: codeOnly.issuer });
  machineMcp = await startProtectedMcp({ issuer: machine.issuer });
});
afterAll(async () => {
  await Promise.all([codeMcp?.close(), machineMcp?.close(), codeOnly?.close(), machine?.close()]);
});

const ctx = (url: string, delegated = false) => ({
  url,
  headers: { Authorization: 'Bearer not-a-token' },
  revision: '2026-07-28' as const,
  fetch: globalThis.fetch,
  timeoutMs: 3_000,
  budget: new AbortController().signal,
  delegated,
});

describe('posture unattended-auth', () => {
  it('passes, naming the grant, when the authorization server offers client_credentials', async () => {
    const r = await unattendedAuth(ctx(machineMcp.url));
    expect(r).toMatchObject({ check: 'unattended-auth', status: 'pass' });
    expect(r.detail).toContain('the client_credentials grant');
  });

  it('fails, saying plainly that none is possible and what to do, when the server offers authorization code only', async () => {
    const r = await unattendedAuth(ctx(codeMcp.url));
    expect(r.status).toBe('fail');
    expect(r.detail).toMatch(
      /^no unattended auth is possible: http:\/\/127\.0\.0\.1:\d+ offers .*authorization_code.*\(clients by dynamic registration\)/,
    );
    expect(r.detail).toContain(`mcp-canary login ${codeMcp.url}`);
  });

  it('passes for a target that already keeps a delegated grant', async () => {
    const r = await unattendedAuth(ctx(codeMcp.url, true));
    expect(r).toMatchObject({ status: 'pass' });
    expect(r.detail).toContain('keeps a delegated grant');
  });
});

describe('posture unattended-auth: the MCP extension', () => {
  it('passes, naming io.modelcontextprotocol/oauth-client-credentials, when the server advertises it in its capabilities', async () => {
    const { createServer } = await import('node:http');
    const { toNodeHandler } = await import('@modelcontextprotocol/node');
    const { createMcpHandler, McpServer } = await import('@modelcontextprotocol/server');
    const { listen, closeServer } = await import('../../../../functions/demo/servers.ts');
    const handler = toNodeHandler(
      createMcpHandler(
        () =>
          new McpServer(
            { name: 'ext', version: '1.0.0' },
            { capabilities: { extensions: { 'io.modelcontextprotocol/oauth-client-credentials': {} } } },
          ),
        { legacy: 'reject' },
      ),
    );
    const http = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => void handler(req, res, raw ? JSON.parse(raw) : undefined));
    });
    const url = await listen(http, '/mcp');
    try {
      const r = await unattendedAuth(ctx(url));
      expect(r).toMatchObject({ status: 'pass' });
      expect(r.detail).toContain('the io.modelcontextprotocol/oauth-client-credentials extension');
    } finally {
      await closeServer(http);
    }
  });
});
