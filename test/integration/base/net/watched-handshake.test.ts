/**
 * The watched handshakes of net/tls-wall.ts called directly, on real TLS servers. `diagnoseHandshakeReset`
 * is the fallback for requests on a fetch the wire was given (whose sockets its connection records never
 * see), so the judged runs elsewhere do not reach it: its reading of a TLS 1.2 reset is held here.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { diagnoseHandshakeFailure, diagnoseHandshakeReset, speaksTls } from '../../../../functions/base/net/tls-wall.ts';
import { makePki, type Pki } from '../../../helpers/net/pki.ts';
import { startMtlsMcp, type MtlsServer } from '../../../helpers/net/mtls-server.ts';
import { describeWithTools } from '../../../helpers/tools.ts';

const TIMEOUT_MS = 5_000;
const never = () => new AbortController().signal;

describeWithTools(['openssl'], 'watched handshakes (tls-wall.ts)', () => {
  let pki: Pki;
  let walled: MtlsServer;
  let open: MtlsServer;
  beforeAll(async () => {
    pki = makePki();
    [walled, open] = await Promise.all([
      startMtlsMcp(pki, { version: 'TLSv1.2', requireClientCert: true }),
      startMtlsMcp(pki, { version: 'TLSv1.2', requireClientCert: false }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([walled?.close(), open?.close()]);
    pki?.cleanup();
  });

  it('a TLS 1.2 server that asked for a certificate and reset on an untrusted one: reset_after_certificate_request', async () => {
    const material = { cert: pki.untrusted.cert, key: pki.untrusted.key };
    expect(await diagnoseHandshakeReset(new URL(walled.url), TIMEOUT_MS, never(), material)).toBe('reset_after_certificate_request');
  });

  it('a server that asks for none and completes the handshake: null (nothing to diagnose)', async () => {
    expect(await diagnoseHandshakeReset(new URL(open.url), TIMEOUT_MS, never(), {})).toBeNull();
    expect(await diagnoseHandshakeFailure(new URL(open.url), TIMEOUT_MS, never())).toBeNull();
  });

  it('speaks TLS: the https port does, a port that closed is not read as TLS', async () => {
    expect(await speaksTls(new URL(open.url.replace('https:', 'http:')), TIMEOUT_MS, never())).toBe(true);
    const closed = new URL(open.url.replace('https:', 'http:'));
    await open.close();
    expect(await speaksTls(closed, TIMEOUT_MS, never())).toBe(false);
  });

  it('an aborted budget ends the watch at once, telling nothing', async () => {
    const ac = new AbortController();
    ac.abort();
    const material = { cert: pki.untrusted.cert, key: pki.untrusted.key };
    expect(await diagnoseHandshakeReset(new URL(walled.url), TIMEOUT_MS, ac.signal, material)).toBeNull();
  });
});
