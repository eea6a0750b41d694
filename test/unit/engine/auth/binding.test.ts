/**
 * A delegated grant is sent only to the server it was logged in to (functions/engine/auth/binding.ts): one
 * row per way a URL can name another server, and the spellings of the same one. Pure.
 */
import { describe, expect, it } from 'vitest';
import { grantMismatch } from '../../../../functions/engine/auth/binding.ts';

const A = { serverUrl: 'https://mcp.example.com/rates/mcp', resource: 'https://mcp.example.com/rates/mcp' };

describe('the same server, spelled otherwise → the grant may be used', () => {
  it.each([
    ['the same URL', 'https://mcp.example.com/rates/mcp'],
    ['a trailing slash', 'https://mcp.example.com/rates/mcp/'],
    ['the host in capitals', 'https://MCP.Example.com/rates/mcp'],
    ['the default port spelled out', 'https://mcp.example.com:443/rates/mcp'],
    ['a fragment', 'https://mcp.example.com/rates/mcp#x'],
  ])('%s', (_, url) => {
    expect(grantMismatch(A, url)).toBeNull();
  });

  it('a grant with no resource (a 2025-03-26 style server) is bound by its server URL alone', () => {
    expect(grantMismatch({ serverUrl: A.serverUrl }, A.serverUrl)).toBeNull();
  });
});

describe('another server → refused, in words naming both', () => {
  it.each([
    ['another host', 'https://evil.example.com/rates/mcp'],
    ['a subdomain', 'https://x.mcp.example.com/rates/mcp'],
    ['another port', 'https://mcp.example.com:8443/rates/mcp'],
    ['plain http', 'http://mcp.example.com/rates/mcp'],
    ['a sibling path', 'https://mcp.example.com/quotes/mcp'],
    ['a path that only starts alike', 'https://mcp.example.com/rates/mcp-evil'],
    ['a path below it', 'https://mcp.example.com/rates/mcp/admin'],
    ['a query', 'https://mcp.example.com/rates/mcp?tenant=other'],
    ['credentials in the URL', 'https://mcp.example.com@evil.example.com/rates/mcp'],
  ])('%s', (_, url) => {
    const why = grantMismatch(A, url);
    expect(why).toMatch(/^it was issued for https:\/\/mcp\.example\.com\/rates\/mcp, not /);
  });

  it('a grant whose resource does not cover its own server URL (a tampered file) is refused too', () => {
    expect(grantMismatch({ serverUrl: A.serverUrl, resource: 'https://mcp.example.com/quotes' }, A.serverUrl)).toMatch(
      /issued for the resource https:\/\/mcp\.example\.com\/quotes, which https:\/\/mcp\.example\.com\/rates\/mcp is not part of/,
    );
  });

  it('a token that does not say which server it is for is not sent anywhere', () => {
    expect(grantMismatch({ resource: A.resource }, A.serverUrl)).toMatch(/does not say which server/);
  });
});
