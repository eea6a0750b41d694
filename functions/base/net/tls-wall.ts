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

/** How one watched handshake ended, and what the keylog lines showed while it ran. */
interface Handshake {
  readonly end: 'secure' | 'error' | 'close' | 'cut';
  /** The error's code, when it ended in one. */
  readonly code: string;
  /** A keylog line came: the TLS 1.2 key exchange was done. */
  readonly keyed: boolean;
  /** At a keylog line the client had shared signature algorithms: the server sent a CertificateRequest. */
  readonly certificateRequested: boolean;
}

/**
 * One handshake to `url`'s host that sends nothing and only watches where it stops: OpenSSL's keylog
 * callback fires once the TLS 1.2 key exchange is done, and a client's shared signature algorithms are
 * filled only from a CertificateRequest. Hand-written because no library reports where a handshake
 * stopped. The socket ends as soon as the answer is known, within `timeoutMs` and the budget's `signal`.
 */
function watchHandshake(
  url: URL,
  defaultPort: number,
  timeoutMs: number,
  signal: AbortSignal,
  material: ConnectionOptions = {},
): Promise<Handshake> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let keyed = false;
    let certificateRequested = false;
    const socket = connect({
      ...material,
      host,
      port: Number(url.port) || defaultPort,
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
      // Where the handshake stops, not whether the server's certificate is trusted: that is the real request's to judge.
      rejectUnauthorized: false,
    });
    const done = (end: Handshake['end'], code = '') => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve({ end, code, keyed, certificateRequested });
    };
    const onAbort = () => done('cut');
    const timer = setTimeout(onAbort, timeoutMs);
    if (signal.aborted) return done('cut');
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('keylog', () => {
      keyed = true;
      certificateRequested ||= (socket.getSharedSigalgs?.() ?? []).length > 0;
    });
    socket.once('secureConnect', () => done('secure'));
    socket.once('error', (e: NodeJS.ErrnoException) => done('error', e.code ?? ''));
    socket.once('close', () => done('close'));
  });
}

/**
 * A TLS 1.2 `handshake_failure`, told apart by one watched handshake: after the key exchange the server
 * refused the client's (empty) certificate; before it, it found no version or cipher in common. Null when
 * it cannot tell (another failure, a timeout, a handshake that now succeeds).
 */
export async function diagnoseHandshakeFailure(url: URL, timeoutMs: number, signal: AbortSignal): Promise<TlsWall | null> {
  const h = await watchHandshake(url, 443, timeoutMs, signal);
  if (h.end !== 'error' || !isHandshakeFailure(h.code)) return null;
  return h.keyed ? 'client_certificate' : 'no_common_parameters';
}

/**
 * A connection reset during the TLS handshake, before it completed (a TLS 1.2 server that verifies the
 * client's certificate and then resets instead of sending an alert: Node's own, with
 * `rejectUnauthorized`): one more handshake with the same client material, watched, tells whether the
 * server had asked for a client certificate before it reset. The wire's own connection records tell it
 * first (connections.ts); this is for requests on a fetch the wire was given, whose sockets it never sees.
 * `reset_after_certificate_request` when it had; null when it cannot tell.
 */
export async function diagnoseHandshakeReset(
  url: URL,
  timeoutMs: number,
  signal: AbortSignal,
  material: ConnectionOptions,
): Promise<TlsWall | null> {
  const h = await watchHandshake(url, 443, timeoutMs, signal, material);
  const reset = h.end === 'close' || (h.end === 'error' && /^(ECONNRESET|EPIPE)$/.test(h.code));
  return h.certificateRequested && reset ? 'reset_after_certificate_request' : null;
}

/**
 * Whether `url`'s host and port speak TLS. For an `http://` URL whose server closed the connection on the
 * plain request with no byte of an answer (Node's own https server does): a completed handshake, or a TLS
 * alert from the server (it read the ClientHello as TLS), means the URL should be `https://`.
 */
export async function speaksTls(url: URL, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  const h = await watchHandshake(url, 80, timeoutMs, signal);
  return h.end === 'secure' || (h.end === 'error' && serverAlert(h.code) !== null);
}
