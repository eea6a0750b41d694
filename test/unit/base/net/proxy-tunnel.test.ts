/**
 * A forward proxy that misbehaves on CONNECT, as a raw socket does it byte for byte: it closes the
 * connection without an answer, or answers something that is not HTTP. Both are the proxy's, named with
 * its origin (`unreachable`, "the endpoint was not reached"), and end at once. Before, undici took the
 * closed connection for a recoverable socket error and dialled the proxy again in a tight loop
 * (thousands of connections a second) until the request timeout, which then read as the endpoint's
 * `timeout`; the non-HTTP answer read as the endpoint's `protocol`.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { startFaultServer } from '../../../helpers/faults.ts';
import { startForwardProxy } from '../../../helpers/net/forward-proxy.ts';

let proxy: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  proxy = undefined;
});

async function badProxy(onConnect: (socket: import('node:net').Socket) => void) {
  let connections = 0;
  proxy = createServer((socket) => {
    connections++;
    socket.once('data', () => onConnect(socket));
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, connections: () => connections };
}

describe('a proxy that fails CONNECT is named as the proxy, at once', () => {
  it.each([
    [
      'closes the connection without answering',
      (s: import('node:net').Socket) => s.destroy(),
      'closed the connection without answering CONNECT',
    ],
    ['ends it without answering', (s: import('node:net').Socket) => s.end(), 'closed the connection without answering CONNECT'],
    [
      'answers something that is not HTTP',
      (s: import('node:net').Socket) => s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'),
      'answered CONNECT with something that is not HTTP',
    ],
  ])('%s', async (_, onConnect, words) => {
    const p = await badProxy(onConnect);
    // A generous request timeout: the verdict must come from the proxy's answer, not from waiting it out.
    const target = Target.parse({ name: 'behind-proxy', url: 'https://mcp.example.com/mcp', timeoutMs: 20_000 });
    const v = await judge(target, { reach: { proxy: { url: p.url, noProxy: [] } } });
    expect(v.outcome).toBe('failed');
    expect(v.failure).toBe('unreachable');
    expect(v.detail).toContain(`the proxy ${p.url} ${words}; the endpoint was not reached`);
    // Each attempt dials the proxy a few times at most (discovery, the 2025 fallback, a retry), never in a loop.
    expect(p.connections()).toBeLessThan(20);
  });
});

/**
 * A proxy that accepts the connection and never answers CONNECT (a stuck or overloaded proxy, a
 * firewall that swallows the bytes). The request timeout still ends the request, but the verdict names
 * the proxy: the endpoint was never reached, so its `timeout` would send on-call to the wrong server.
 */
describe('a proxy that never answers CONNECT is named as the proxy when the request timeout ends it', () => {
  it('accepts the connection, reads CONNECT and stays silent', async () => {
    let connects = 0;
    const held: import('node:net').Socket[] = [];
    proxy = createServer((socket) => {
      held.push(socket);
      socket.on('data', (b) => (connects += b.toString().startsWith('CONNECT ') ? 1 : 0));
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const target = Target.parse({ name: 'behind-silent-proxy', url: 'https://mcp.example.com/mcp', timeoutMs: 1_000 });
    try {
      const v = await judge(target, { reach: { proxy: { url, noProxy: [] } } });
      expect(connects).toBeGreaterThan(0);
      expect(v.outcome).toBe('failed');
      expect(v.failure).toBe('unreachable');
      expect(v.detail).toContain(
        `the proxy ${url} did not answer CONNECT within the request timeout (1000 ms); the endpoint was not reached`,
      );
      expect(v.detail).not.toMatch(/no complete answer within the request timeout/);
    } finally {
      for (const s of held) s.destroy();
    }
  });

  it('mcp-canary login through it names the proxy too, not the authorization server', async () => {
    const held: import('node:net').Socket[] = [];
    proxy = createServer((socket) => {
      held.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const error = await login({
        serverUrl: 'https://mcp.example.com/mcp',
        settings: { allowPrivateNetwork: false },
        onAuthorizationUrl: () => {},
        onSecret: () => {},
        timeoutMs: 1_000,
        reach: { proxy: { url, noProxy: [] } },
      }).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toContain(
        `the proxy ${url} did not answer CONNECT within the request timeout (1000 ms); the endpoint was not reached`,
      );
    } finally {
      for (const s of held) s.destroy();
    }
  });

  it('a proxy that forwarded the request leaves a silent endpoint its own timeout', async () => {
    const open = await startForwardProxy();
    const silent = await startFaultServer(() => {}); // reads the request, never answers
    try {
      const target = Target.parse({ name: 'silent-behind-proxy', url: `${silent.url}/mcp`, timeoutMs: 1_000 });
      const v = await judge(target, { reach: { proxy: { url: open.url, noProxy: [] } } });
      // A plain http:// endpoint: forwarded in absolute form, as curl does (no tunnel to answer).
      expect(open.forwarded.length).toBeGreaterThan(0);
      expect(v.failure).toBe('timeout');
      expect(v.detail).not.toContain('the proxy');
    } finally {
      await silent.close();
      await open.close();
    }
  });
});
