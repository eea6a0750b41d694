/**
 * Client certificates (mutual TLS) against real TLS servers made here with openssl certificates, on
 * TLS 1.2 and on TLS 1.3, serving the SDK's MCP server: no certificate → `tls` naming the client
 * certificate and the field to set; the right one → healthy; one expiring soon → a credential_expiry
 * warning. The
 * material is read the way a run reads it (secrets/reach.ts: file references, checked first), and no
 * key or passphrase appears in any verdict.
 */
import type { SecureVersion } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { Target, type TargetInput } from '../../../../functions/base/config/schema/target.ts';
import { readReach } from '../../../../functions/io/secrets/reach.ts';
import type { Reach } from '../../../../functions/base/common/run-context.ts';
import { makePki, type ClientCert, type Pki } from '../../../helpers/net/pki.ts';
import { startMtlsMcp, type MtlsServer } from '../../../helpers/net/mtls-server.ts';
import { describeWithTools } from '../../../helpers/tools.ts';

const noStore = () => Promise.reject(new Error('no store in this test'));

async function reachFor(
  pki: Pki,
  client: ClientCert | null,
  extra: Partial<NonNullable<TargetInput['tls']>> = {},
): Promise<Reach | undefined> {
  const tls = Target.parse({
    name: 't',
    url: 'https://127.0.0.1/mcp',
    tls: {
      ca: `file:${pki.caFile}`,
      ...(client ? { clientCertificate: `file:${client.certFile}`, clientKey: `file:${client.keyFile}` } : {}),
      ...extra,
    },
  }).tls;
  return (await readReach(tls, undefined, noStore, { files: true, now: Date.now() })).reach;
}

function target(url: string): Target {
  return Target.parse({ name: 'mtls', url, tool: { name: 'get_rate', expectText: 'EURUSD' }, timeoutMs: 5_000 });
}

describeWithTools(['openssl'], 'client certificates (mutual TLS)', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki();
  });
  afterAll(() => pki?.cleanup());

  describe.each<SecureVersion>(['TLSv1.3', 'TLSv1.2'])('a server that requires one, on %s', (version) => {
    let server: MtlsServer;
    beforeAll(async () => {
      server = await startMtlsMcp(pki, { version, requireClientCert: true });
    });
    afterAll(() => server?.close());

    it('without a certificate: tls, naming the client certificate and the field to set — not unreachable', async () => {
      const v = await judge(target(server.url), { reach: await reachFor(pki, null) });
      expect(v.outcome).toBe('failed');
      expect(v.failure).toBe('tls');
      expect(v.detail).toMatch(/the server requires a client certificate, which the canary does not send/);
      expect(v.detail).toMatch(/tls\.clientCertificate/);
      expect(v.detail).toMatch(version === 'TLSv1.3' ? /certificate_required/ : /handshake_failure after the key exchange/);
    });

    // Node's own server checks the certificate after its side of the handshake and destroys the socket
    // with no alert: on TLS 1.2 the client's handshake has not completed yet (the reset arrives before
    // the server's Finished). Before, that read as `unreachable` (ECONNRESET) on TLS 1.2.
    it('with a certificate from a CA it does not trust: tls, "refused the client certificate the canary presented"', async () => {
      const v = await judge(target(server.url), { reach: await reachFor(pki, pki.untrusted) });
      expect(v.outcome).toBe('failed');
      expect(v.failure).toBe('tls');
      expect(v.detail).toMatch(/the server refused the client certificate the canary presented/);
      expect(v.detail).toMatch(/tls\.clientCertificate is issued by a CA the server trusts/);
    });

    it('with its certificate: healthy, and the server saw the canary’s certificate', async () => {
      const v = await judge(target(server.url), { reach: await reachFor(pki, pki.client) });
      expect(v.outcome).toBe('healthy');
      expect(server.clients).toContain('canary-client');
      expect(v.warnings ?? []).toEqual([]);
    });

    it('with an encrypted key and its passphrase: healthy; the key and passphrase appear nowhere in the verdict', async () => {
      const { writeFileSync } = await import('node:fs');
      const passFile = `${pki.dir}/passphrase.txt`;
      writeFileSync(passFile, `${pki.passphrase}\n`);
      const reach = await reachFor(pki, pki.encrypted, { passphrase: `file:${passFile}` });
      const v = await judge(target(server.url), { reach });
      expect(v.outcome).toBe('healthy');
      const all = JSON.stringify(v);
      expect(all).not.toContain(pki.passphrase);
      for (const line of pki.encrypted.key.split('\n').filter((l) => l.length > 20)) expect(all).not.toContain(line);
    });

    it('with a certificate expiring in 3 days: healthy, with a credential_expiry warning naming it', async () => {
      const v = await judge(target(server.url), { reach: await reachFor(pki, pki.expiring) });
      expect(v.outcome).toBe('healthy');
      const w = (v.warnings ?? []).find((x) => x.kind === 'credential_expiry');
      expect(w?.detail).toMatch(/^the client certificate in tls\.clientCertificate \(CN=canary-client-soon\) expires .* \(in 3 days\)$/);
    });
  });
});
