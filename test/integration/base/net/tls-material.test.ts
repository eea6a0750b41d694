/**
 * TLS material is checked before any connection, and a wrong piece is a config error naming the field
 * and the fix — never the material, never a TLS failure blamed on the endpoint: a PEM that is not a
 * certificate, a key that is not the certificate's, an expired certificate, a wrong or missing
 * passphrase. In the CLI it is exit 2 with the message; in the scheduled run an inconclusive verdict
 * for the canary owner, never a page.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkTlsMaterial } from '../../../../functions/base/config/load/tls-material.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { makePki, pkiFile, type Pki } from '../../../helpers/net/pki.ts';
import { describeNeeding } from '../../../helpers/tools.ts';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const describe = describeNeeding(['openssl']);
const BIN = CLI_BIN;
const where = (field: string) => `the file for ${field}`;

describe('checking TLS material', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki();
  });
  afterAll(() => pki?.cleanup());

  const problem = (read: Parameters<typeof checkTlsMaterial>[0], now = Date.now()) => {
    try {
      checkTlsMaterial(read, where, now);
    } catch (e) {
      return (e as Error).message;
    }
    return null;
  };

  it('accepts a certificate with its key, and reads its expiry and subject', () => {
    const m = checkTlsMaterial({ clientCertificate: pki.client.cert, clientKey: pki.client.key, ca: pki.caPem }, where, Date.now());
    expect(m.certSubject).toBe('CN=canary-client');
    expect(m.certNotAfter).toBeGreaterThan(Date.now() + 80 * 86_400_000);
    expect(m.ca).toBe(pki.caPem);
  });

  it('a key where the certificate belongs: names the field, what it holds and what to store', () => {
    expect(problem({ clientCertificate: pki.client.key, clientKey: pki.client.key })).toBe(
      'tls.clientCertificate (the file for tls.clientCertificate) is not a PEM certificate (it holds a private key, not a certificate): store the client certificate in PEM (BEGIN CERTIFICATE)',
    );
    expect(problem({ ca: 'hello' })).toMatch(/^tls\.ca \(the file for tls\.ca\) is not a PEM certificate \(it holds no PEM block\)/);
  });

  it('a key that is not the certificate’s', () => {
    expect(problem({ clientCertificate: pki.client.cert, clientKey: pki.expiring.key })).toBe(
      'tls.clientKey (the file for tls.clientKey) is not the private key of the client certificate (CN=canary-client): store the key that was issued with that certificate, or the certificate of this key',
    );
  });

  it('a chain: the key’s certificate first is accepted; stored after its issuer, the words say which block to move', () => {
    expect(problem({ clientCertificate: `${pki.client.cert}${pki.caPem}`, clientKey: pki.client.key })).toBeNull();
    expect(problem({ clientCertificate: `${pki.caPem}${pki.client.cert}`, clientKey: pki.client.key })).toBe(
      'tls.clientCertificate (the file for tls.clientCertificate): the certificate of tls.clientKey (CN=canary-client) is certificate 2 of 2, after CN=canary-test-ca: store it first, then its intermediates',
    );
  });

  it('an expired certificate (judged at a later clock): names the date and says renew', () => {
    const later = Date.now() + 120 * 86_400_000;
    expect(problem({ clientCertificate: pki.client.cert, clientKey: pki.client.key }, later)).toMatch(
      /^tls\.clientCertificate \(the file for tls\.clientCertificate\): the client certificate \(CN=canary-client\) expired \d{4}-\d\d-\d\dT.*: renew it/,
    );
  });

  it('an encrypted key: a wrong passphrase, and a missing one, each with the fix; the passphrase never in the words', () => {
    const wrong = problem({ clientCertificate: pki.encrypted.cert, clientKey: pki.encrypted.key, passphrase: 'not-the-Passphrase-42' });
    expect(wrong).toMatch(
      /^tls\.passphrase \(the file for tls\.passphrase\) does not unlock tls\.clientKey \(ERR_OSSL_BAD_DECRYPT\): store the key's passphrase/,
    );
    expect(wrong).not.toContain('not-the-Passphrase-42');
    expect(problem({ clientCertificate: pki.encrypted.cert, clientKey: pki.encrypted.key })).toMatch(
      /is encrypted and tls\.passphrase is not set: reference its passphrase in tls\.passphrase/,
    );
    expect(problem({ clientCertificate: pki.encrypted.cert, clientKey: pki.encrypted.key, passphrase: pki.passphrase })).toBeNull();
  });

  it('the schema: a PEM pasted in place of a reference is refused, without echoing it; a certificate needs its key', () => {
    const pasted = Target.safeParse({
      name: 't',
      url: 'https://x.example.com/mcp',
      tls: { clientCertificate: pki.client.cert, clientKey: 'file:k.pem' },
    });
    expect(pasted.success).toBe(false);
    const text = JSON.stringify(pasted.error?.issues);
    expect(text).toMatch(/must be a reference, never the PEM itself/);
    expect(text).not.toContain(pki.client.cert.split('\n')[1]);
    const alone = Target.safeParse({ name: 't', url: 'https://x.example.com/mcp', tls: { clientCertificate: 'file:c.pem' } });
    expect(alone.error?.issues[0]).toMatchObject({
      path: ['tls', 'clientKey'],
      message: expect.stringMatching(/is required with clientCertificate/),
    });
  });

  it('in the CLI: a wrong passphrase is exit 2 with the field and the fix, and neither key nor passphrase on any stream', async () => {
    const passFile = pkiFile(pki, 'wrong-pass.txt', 'Wrong-passphrase-9\n');
    const file = join(pki.dir, 'fleet-wrong-pass.json');
    writeFileSync(
      file,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [
          {
            name: 'mesh',
            url: 'https://127.0.0.1:9/mcp',
            tls: {
              clientCertificate: `file:${pki.encrypted.certFile}`,
              clientKey: `file:${pki.encrypted.keyFile}`,
              passphrase: `file:${passFile}`,
            },
          },
        ],
      }),
    );
    const r = await runToEnd(process.execPath, [BIN, 'check', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/target "mesh": tls\.passphrase \(the file ".*wrong-pass\.txt"\) does not unlock tls\.clientKey/);
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toContain('Wrong-passphrase-9');
      for (const line of pki.encrypted.key.split('\n').filter((l) => l.length > 20)) expect(out).not.toContain(line);
    }
  });
});
