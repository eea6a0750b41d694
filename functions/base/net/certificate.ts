/**
 * The `notAfter` of a server's TLS certificate, read with one handshake of its own: the expiry warning
 * (auth/expiry.ts) and the posture `hsts` check read it. Trust is not judged here (the probes do that,
 * and fail `tls`); only the date is read.
 */
import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/**
 * The certificate's `notAfter` (ms) of host:port; rejects on any failure, and never outlives `timeoutMs`.
 * Its own rejections are plain Errors: both readers catch every rejection as "not read" and show none.
 */
export function readCertificate(host: string, port: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => socket.destroy(new Error('certificate check timed out')), timeoutMs);
    socket.once('secureConnect', () => {
      const notAfter = Date.parse(socket.getPeerCertificate().valid_to);
      clearTimeout(timer);
      // destroy, not end: a peer that never answers our FIN would keep the socket past the verdict.
      socket.destroy();
      if (Number.isNaN(notAfter)) reject(new Error('no certificate expiry'));
      else resolve(notAfter);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      socket.destroy();
      reject(e);
    });
  });
}
