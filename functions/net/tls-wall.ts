/**
 * What a TLS failure says, in on-call's words. The rule: a TLS alert *from the server*
 * (`ERR_SSL_<version>_ALERT_<name>`) is the server refusing the canary; the canary's own checks of the
 * server's certificate have codes of their own (`CERT_HAS_EXPIRED`, `DEPTH_ZERO_SELF_SIGNED_CERT`, …).
 * So an alert about a certificate is about the client's — the canary sends none: the server requires
 * one. On TLS 1.3 that alert (`certificate_required`) arrives after the handshake completed, and the
 * client sees only a closed socket unless the wire listens on the socket itself (wire.ts). On TLS 1.2 an
 * OpenSSL server says `handshake_failure` both for "no client certificate" and for "no version or cipher
 * in common"; one more handshake, watched, tells which (`diagnoseHandshakeFailure`).
 */
import { isIP } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';

/**
 * Where a TLS failure stopped: a TLS 1.2 `handshake_failure` after the key exchange (the client's
 * certificate refused), or before it; or a connection the server reset, with no alert, right after a
 * handshake in which it asked for a client certificate and before any HTTP answer (wire.ts).
 */
export type TlsWall = 'client_certificate' | 'no_common_parameters' | 'reset_after_certificate_request';

const SERVER_ALERT = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13|SSL\/TLS)_ALERT_([A-Z_]+)$/;
const CERTIFICATE_ALERTS: ReadonlySet<string> = new Set([
  'CERTIFICATE_REQUIRED',
  'BAD_CERTIFICATE',
  'UNSUPPORTED_CERTIFICATE',
  'CERTIFICATE_REVOKED',
  'CERTIFICATE_EXPIRED',
  'CERTIFICATE_UNKNOWN',
  'UNKNOWN_CA',
]);

/** The server's TLS alert in a code, as its RFC 8446 name (`certificate_required`), or null when the code is not one. */
export function serverAlert(code: string): string | null {
  const m = SERVER_ALERT.exec(code);
  return m ? m[1]!.toLowerCase() : null;
}

export function isHandshakeFailure(code: string): boolean {
  return serverAlert(code) === 'handshake_failure';
}

/**
 * One line for a TLS failure: what the server or its certificate did, with the code. `sentCertificate`:
 * the canary presented the target's client certificate (`tls.clientCertificate`), so an alert about a
 * certificate is the server refusing that one, not asking for one.
 */
export function describeTls(code: string, wall: TlsWall | null | undefined, sentCertificate = false): string {
  if (wall === 'reset_after_certificate_request') {
    const how = `it asked for a client certificate in the TLS handshake, then ended the connection before any HTTP answer, with no TLS alert: ${code}`;
    if (sentCertificate)
      return `the server refused the client certificate the canary presented (${how}): check that tls.clientCertificate is issued by a CA the server trusts and is for this server`;
    return `the server requires a client certificate, which the canary does not send (${how}); set the target's tls.clientCertificate and tls.clientKey`;
  }
  const alert = serverAlert(code);
  if (alert) {
    if (CERTIFICATE_ALERTS.has(alert.toUpperCase()) || wall === 'client_certificate') {
      const when =
        alert === 'handshake_failure' ? ' after the key exchange' : alert === 'certificate_required' ? ' after the handshake' : '';
      if (sentCertificate)
        return `the server refused the client certificate the canary presented (TLS alert ${alert}${when}, ${code}): check that tls.clientCertificate is issued by a CA the server trusts and is for this server`;
      return `the server requires a client certificate, which the canary does not send (TLS alert ${alert}${when}, ${code}); set the target's tls.clientCertificate and tls.clientKey`;
    }
    if (alert === 'protocol_version') return `the server shares no TLS version with the canary (TLS alert protocol_version, ${code})`;
    if (wall === 'no_common_parameters')
      return `the server shares no TLS version or cipher with the canary (TLS alert ${alert} before the key exchange, ${code})`;
    return `the server refused the TLS handshake (TLS alert ${alert}, ${code})`;
  }
  const why = LOCAL[code] ?? (/^ERR_TLS_CERT_ALTNAME/.test(code) ? "the server's certificate is for another name" : null);
  return `TLS handshake failed (${code})${why ? `: ${why}` : ''}`;
}

const LOCAL: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed, not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's chain ends in a self-signed certificate the canary does not trust",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is from an issuer the canary does not trust (or the chain is incomplete)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate is from an issuer the canary does not trust (or the chain is incomplete)",
  // OpenSSL's words when the first bytes back are no TLS record: most often a plain-HTTP port ("HTTP/1.1 400").
  ERR_SSL_WRONG_VERSION_NUMBER: 'the answer is not TLS (a plain-HTTP port? the URL may be http://)',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'the answer is not TLS (a plain-HTTP port? the URL may be http://)',
};

/**
 * One handshake to the endpoint's host, watched: OpenSSL's keylog callback fires once the TLS 1.2 key
 * exchange is done, so a `handshake_failure` after it refused the client's (empty) certificate, and one
 * before it found no version or cipher in common. Hand-written because no library reports where a failed
 * handshake stopped. Sends no HTTP request; the socket ends as soon as the answer is known, within
 * `timeoutMs`. Null when it cannot tell (another failure, a timeout, a handshake that now succeeds).
 */
export function diagnoseHandshakeFailure(url: URL, timeoutMs: number, signal: AbortSignal): Promise<TlsWall | null> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let keyed = false;
    const socket = connect({
      host,
      port: Number(url.port) || 443,
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
      // It sends nothing and only watches where the handshake stops: trust is the real request's to judge.
      rejectUnauthorized: false,
    });
    const done = (wall: TlsWall | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(wall);
    };
    const onAbort = () => done(null);
    const timer = setTimeout(onAbort, timeoutMs);
    if (signal.aborted) return done(null);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('keylog', () => (keyed = true));
    socket.once('secureConnect', () => done(null));
    socket.once('error', (e: NodeJS.ErrnoException) =>
      done(isHandshakeFailure(e.code ?? '') ? (keyed ? 'client_certificate' : 'no_common_parameters') : null),
    );
    socket.once('close', () => done(null));
  });
}

/**
 * A connection reset during the TLS handshake, before it completed (a TLS 1.2 server that verifies the
 * client's certificate and then resets instead of sending an alert: Node's own, with
 * `rejectUnauthorized`): one more handshake with the same client material, watched, tells whether the
 * server had asked for a client certificate before it reset. OpenSSL fills a client's shared signature
 * algorithms only from a CertificateRequest, and they can be read at each keylog line, while the
 * handshake is under way. `reset_after_certificate_request` when it had; null when it cannot tell.
 */
export function diagnoseHandshakeReset(
  url: URL,
  timeoutMs: number,
  signal: AbortSignal,
  material: ConnectionOptions,
): Promise<TlsWall | null> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let requested = false;
    const socket = connect({
      ...material,
      host,
      port: Number(url.port) || 443,
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
      // It sends nothing and only watches the handshake: trust is the real request's to judge.
      rejectUnauthorized: false,
    });
    const done = (wall: TlsWall | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(wall);
    };
    const onAbort = () => done(null);
    const timer = setTimeout(onAbort, timeoutMs);
    if (signal.aborted) return done(null);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('keylog', () => (requested ||= (socket.getSharedSigalgs?.() ?? []).length > 0));
    socket.once('secureConnect', () => done(null));
    socket.once('error', (e: NodeJS.ErrnoException) =>
      done(requested && /^(ECONNRESET|EPIPE)$/.test(e.code ?? '') ? 'reset_after_certificate_request' : null),
    );
    socket.once('close', () => done(requested ? 'reset_after_certificate_request' : null));
  });
}

/**
 * Whether `url`'s host and port speak TLS: one handshake, sending nothing, within `timeoutMs` and the
 * budget's `signal`. For an `http://` URL whose server closed the connection on the plain request with
 * no byte of an answer (Node's own https server does): a completed handshake, or a TLS alert from the
 * server (it read the ClientHello as TLS), means the URL should be `https://`.
 */
export function speaksTls(url: URL, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = connect({
      host,
      port: Number(url.port) || 80,
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
      // Whether TLS answers at all, not whether its certificate is trusted: that is the https run's to judge.
      rejectUnauthorized: false,
    });
    const done = (tls: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(tls);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(onAbort, timeoutMs);
    if (signal.aborted) return done(false);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => done(true));
    socket.once('error', (e: NodeJS.ErrnoException) => done(serverAlert(e.code ?? '') !== null));
    socket.once('close', () => done(false));
  });
}
