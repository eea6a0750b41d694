/**
 * A server that asks for a client certificate and, refusing the canary's (or its missing one), sends no
 * TLS alert but ends the connection right after the handshake, before any HTTP answer: `tls` naming the
 * client certificate — not `unreachable` — on TLS 1.2 and 1.3, reset and plain close, with no
 * certificate and with one from a CA the server does not trust. A server that resets without ever
 * asking for a certificate stays `unreachable`.
 */
import type { SecureVersion } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { readReach } from '../../../../functions/io/secrets/reach.ts';
import { makePki, type ClientCert, type Pki } from '../../../helpers/net/pki.ts';
import { startResettingTls, type ResettingServer } from '../../../helpers/net/resetting-tls-server.ts';
import { startForwardProxy } from '../../../helpers/net/forward-proxy.ts';
import { describeWithTools } from '../../../helpers/tools.ts';

const noStore = () => Promise.reject(new Error('no store in this test'));

async function run(pki: Pki, url: string, client: ClientCert | null, proxyUrl?: string) {
  const tls = Target.parse({
    name: 't',
    url,
    tls: {
      ca: `file:${pki.caFile}`,
      ...(client ? { clientCertificate: `file:${client.certFile}`, clientKey: `file:${client.keyFile}` } : {}),
    },
  }).tls;
  const proxy = proxyUrl ? { url: proxyUrl, noProxy: [] } : undefined;
  const { reach } = await readReach(tls, proxy, noStore, { files: true, now: Date.now() });
  return judge(Target.parse({ name: 'reset', url, tool: { name: 'get_rate', expectText: 'EURUSD' }, timeoutMs: 5_000 }), { reach });
}

describeWithTools(['openssl'], 'a server that refuses the client certificate by ending the connection, with no TLS alert', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki();
  });
  afterAll(() => pki?.cleanup());

  describe.each<[SecureVersion, 'reset' | 'close']>([
    ['TLSv1.3', 'reset'],
    ['TLSv1.2', 'reset'],
    ['TLSv1.3', 'close'],
    ['TLSv1.2', 'close'],
  ])('on %s, by %s', (version, end) => {
    let server: ResettingServer;
    beforeAll(async () => {
      server = await startResettingTls(pki, { version, end });
    });
    afterAll(() => server?.close());

    it('no certificate sent: tls, "requires a client certificate, which the canary does not send"', async () => {
      const v = await run(pki, server.url, null);
      expect(server.refused()).toBeGreaterThan(0);
      expect(v.failure).toBe('tls');
      expect(v.detail).toMatch(/the server requires a client certificate, which the canary does not send/);
      expect(v.detail).toMatch(/asked for a client certificate .* before any HTTP answer, with no TLS alert/);
      expect(v.detail).toMatch(/set the target's tls\.clientCertificate/);
    });

    it('an untrusted certificate sent: tls, "refused the client certificate the canary presented"', async () => {
      const v = await run(pki, server.url, pki.untrusted);
      expect(v.failure).toBe('tls');
      expect(v.detail).toMatch(/the server refused the client certificate the canary presented/);
      expect(v.detail).toMatch(/tls\.clientCertificate is issued by a CA the server trusts/);
    });

    it('the trusted certificate: healthy (the same server, so the words above are about the certificate)', async () => {
      const v = await run(pki, server.url, pki.client);
      expect(v.outcome).toBe('healthy');
    });
  });

  it('through a forward proxy too: the tunnel carries the handshake, and the reset is still the certificate', async () => {
    const [server, proxy] = await Promise.all([startResettingTls(pki, { version: 'TLSv1.3', end: 'reset' }), startForwardProxy()]);
    try {
      const v = await run(pki, server.url, pki.untrusted, proxy.url);
      expect(proxy.connects.length).toBeGreaterThan(0);
      expect(v.failure).toBe('tls');
      expect(v.detail).toMatch(/the server refused the client certificate the canary presented/);
    } finally {
      await Promise.all([server.close(), proxy.close()]);
    }
  });

  it('a server that resets without asking for a certificate stays unreachable', async () => {
    const server = await startResettingTls(pki, { version: 'TLSv1.3', end: 'reset', requestCert: false });
    try {
      const v = await run(pki, server.url, null);
      expect(server.refused()).toBeGreaterThan(0);
      expect(v.failure).toBe('unreachable');
    } finally {
      await server.close();
    }
  });
});
