/**
 * The SSRF guard's rules, one row each (pure apart from an injected resolver), and a redirect hop
 * that leaves for a private address over the real wire.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  addressKind,
  checkUrl,
  guardedFetch,
  GuardRefusal,
  pinnedFetch,
  type GuardOptions,
} from '../../../../functions/base/net/ssrf-guard.ts';
import { closeServer, listen } from '../../../../functions/demo/servers.ts';

const dns = (table: Record<string, string[]>) => async (host: string) => {
  const found = table[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};
const remote: GuardOptions = {
  allowPrivateNetwork: false,
  loopbackAllowed: false,
  lookup: dns({
    'auth.example.com': ['93.184.216.34'],
    'intranet.example.com': ['10.1.2.3'],
    'sneaky.example.com': ['93.184.216.34', '192.168.1.10'],
    'metadata.google.internal': ['169.254.169.254'],
  }),
};

async function refusal(url: string, o: GuardOptions): Promise<string> {
  try {
    await checkUrl(url, o);
  } catch (e) {
    if (e instanceof GuardRefusal) return e.reason;
    throw e;
  }
  return 'allowed';
}

describe('addressKind', () => {
  const rows: Array<[string, string | null]> = [
    ['93.184.216.34', null],
    ['2606:2800:220:1::', null],
    ['10.0.0.1', 'private'],
    ['172.20.1.1', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'private'],
    ['fd12::1', 'private'],
    ['::', 'private'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
  ];
  for (const [address, kind] of rows) it(`${address} → ${kind ?? 'public'}`, () => expect(addressKind(address)).toBe(kind));
});

describe('checkUrl', () => {
  it('allows https to a public host', async () => expect(await refusal('https://auth.example.com/token', remote)).toBe('allowed'));
  it('refuses plain http to a public host', async () =>
    expect(await refusal('http://auth.example.com/token', remote)).toMatch(/^http is not allowed for OAuth URLs: https only/));
  it('refuses a host that resolves to a private address', async () =>
    expect(await refusal('https://intranet.example.com/', remote)).toMatch(
      /^a private address \(10\.1\.2\.3\); set auth\.oauth\.allowPrivateNetwork/,
    ));
  it('refuses a host with any private address among public ones', async () =>
    expect(await refusal('https://sneaky.example.com/', remote)).toMatch(/^a private address \(192\.168\.1\.10\)/));
  it('allows a private address when the target opts in', async () =>
    expect(await refusal('https://intranet.example.com/', { ...remote, allowPrivateNetwork: true })).toBe('allowed'));
  it('refuses cloud metadata by name, even when the target opts in', async () => {
    expect(await refusal('https://metadata.google.internal/', { ...remote, allowPrivateNetwork: true })).toBe(
      'a cloud metadata address (169.254.169.254), never followed',
    );
  });
  it("refuses loopback when the target is remote (the Lambda's runtime API lives there)", async () => {
    expect(await refusal('https://127.0.0.1:9001/', remote)).toMatch(/^a loopback address \(127\.0\.0\.1\)/);
    expect(await refusal('http://localhost:9001/', remote)).toMatch(/^http is not allowed/);
  });
  it('allows loopback and plain http to it when the target is on loopback', async () => {
    expect(await refusal('http://127.0.0.1:8080/token', { ...remote, loopbackAllowed: true })).toBe('allowed');
    expect(await refusal('http://[::1]:8080/token', { ...remote, loopbackAllowed: true })).toBe('allowed');
  });
  it('refuses a host that does not resolve, naming the error', async () =>
    expect(await refusal('https://nowhere.example.com/', remote)).toBe('its host does not resolve (ENOTFOUND)'));
});

describe('checkUrl through a forward proxy (a network whose only way out is the proxy resolves no outside name)', () => {
  const proxied: GuardOptions = { ...remote, viaProxy: true };
  it('allows https to a name only the proxy can resolve', async () =>
    expect(await refusal('https://auth.elsewhere.example/token', proxied)).toBe('allowed'));
  it('still refuses plain http to it (no address is not loopback)', async () =>
    expect(await refusal('http://auth.elsewhere.example/token', { ...proxied, loopbackAllowed: true })).toMatch(/https only/));
  it('still judges a name that does resolve here by its addresses', async () => {
    expect(await refusal('https://intranet.example.com/token', proxied)).toMatch(/a private address \(10\.1\.2\.3\)/);
    expect(await refusal('https://metadata.google.internal/', proxied)).toMatch(/cloud metadata/);
  });
  it('still refuses a private or metadata literal', async () => {
    expect(await refusal('https://10.0.0.7/token', proxied)).toMatch(/a private address/);
    expect(await refusal('https://169.254.169.254/latest', proxied)).toMatch(/cloud metadata/);
  });
});

describe('guardedFetch over the wire', () => {
  it('never follows a redirect itself: the 3xx comes back, so the next hop is checked as a request of its own', async () => {
    const server = createServer((_req, res) => res.writeHead(302, { location: 'https://10.0.0.9/steal' }).end());
    const url = await listen(server, '/.well-known/oauth-protected-resource');
    try {
      const f = guardedFetch((u, i) => fetch(u, i), { allowPrivateNetwork: false, loopbackAllowed: true });
      const res = await f(url);
      expect(res.status).toBe(302);
      await expect(f(res.headers.get('location')!)).rejects.toThrow(/refused to fetch https:\/\/10\.0\.0\.9\/steal: a private address/);
    } finally {
      await closeServer(server);
    }
  });

  it('checks the addresses again when the connection resolves the name (DNS rebinding)', async () => {
    let answers = 0;
    const rebinding: GuardOptions = {
      allowPrivateNetwork: false,
      loopbackAllowed: false,
      lookup: async () => (++answers === 1 ? ['93.184.216.34'] : ['10.0.0.8']),
    };
    const pinned = await pinnedFetch(rebinding);
    try {
      await expect(guardedFetch(pinned.fetch!, rebinding)('https://rebind.example/.well-known/oauth-authorization-server')).rejects.toThrow(
        /refused to fetch https:\/\/rebind\.example\/: a private address \(10\.0\.0\.8\)/,
      );
      expect(answers).toBe(2);
    } finally {
      await pinned.close();
    }
  });
});
